// One webhook attempt. node:http(s) rather than fetch for its `lookup` hook (http/outbound-address.ts):
// the name is resolved at connect time and the socket connects only to an address that passed the
// check, so neither an internal address literal nor a name resolving to one (DNS rebinding included)
// is reached, unless VIDHOST_WEBHOOK_ALLOW_PRIVATE. node:http follows no redirect: a 3xx is just the
// answer. The answer's body is never read; one timer covers DNS, connect, sending and the headers.
import http from "node:http";
import https from "node:https";
import { blockedAddress, guardedLookup, isAddressLiteral, RefusedHostError } from "../http/outbound-address";

export interface PostLimits {
  allowPrivate: boolean;
  timeoutMs: number;
}

/** The attempt took longer than the webhook timeout. */
export class WebhookTimeoutError extends Error {
  constructor(ms: number) {
    super(`No answer within ${ms} ms.`);
    this.name = "TimeoutError";
  }
}

/**
 * POSTs exactly `body` (UTF-8) to `target` with `headers`; resolves with the answer's status code.
 * Rejects with a RefusedHostError (nothing was sent), a WebhookTimeoutError, a network error, or
 * `signal`'s reason.
 */
export function postWebhook(target: string, body: string, headers: Record<string, string>, limits: PostLimits, signal: AbortSignal): Promise<number> {
  return new Promise((resolve, reject) => {
    const url = new URL(target);
    const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
    // Literals never reach the lookup hook.
    const literalWhy = !limits.allowPrivate && isAddressLiteral(host) ? blockedAddress(host) : null;
    if (literalWhy) return reject(new RefusedHostError(host, literalWhy));
    if (signal.aborted) return reject(signal.reason);

    const bytes = Buffer.from(body, "utf8");
    const secure = url.protocol === "https:";
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      fn();
    };
    const req = (secure ? https : http).request({
      host,
      port: url.port || (secure ? 443 : 80),
      path: `${url.pathname}${url.search}`,
      method: "POST",
      headers: { ...headers, "content-length": String(bytes.byteLength) },
      ...(url.username || url.password ? { auth: `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}` } : {}),
      lookup: guardedLookup(limits.allowPrivate),
      agent: false,
      ...(secure && !isAddressLiteral(host) ? { servername: host } : {}),
    }, (res) => {
      const status = res.statusCode ?? 0;
      res.destroy();
      settle(() => resolve(status));
    });
    const fail = (err: unknown) => settle(() => {
      req.destroy();
      reject(err);
    });
    const timer = setTimeout(() => fail(new WebhookTimeoutError(limits.timeoutMs)), limits.timeoutMs);
    const onAbort = () => fail(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    req.on("error", fail);
    req.end(bytes);
  });
}
