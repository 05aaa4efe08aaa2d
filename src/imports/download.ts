// The guarded download of a `source` URL. node:http(s) rather than fetch because of its `lookup`
// option (Bun honours it, for http and https): the name is resolved once, every address checked,
// and the socket connects to a checked address, so a DNS answer that changes between check and
// connect (rebinding) cannot reach an internal address. Redirects are followed by hand, each hop
// checked again. The body streams to the caller's sink with a byte cap, a total and an idle timeout,
// continuing an earlier attempt's bytes when the server can say they are still the same (resume.ts).
import http, { type IncomingMessage } from "node:http";
import https from "node:https";
import { blockedAddress, guardedLookup, isAddressLiteral, RefusedHostError } from "../http/outbound-address";
import { continuesAt, resumeHeaders, validatorOf, type Resume } from "./resume";

export interface DownloadLimits {
  maxBytes: number;
  timeoutMs: number;
  idleMs: number;
  maxRedirects: number;
  allowPrivate: boolean;
}

/** A download that failed for a reason worth telling the user; `retryable` when trying again may help. */
export class ImportError extends Error {
  constructor(readonly reason: string, readonly retryable: boolean) {
    super(reason);
    this.name = "ImportError";
  }
}

/** Where the body starts in the file, and what identifies the file's bytes for a later resume. */
export interface BodyStart {
  /** 0, or the resume offset when the server continues the kept bytes. */
  offset: number;
  validator: string | null;
}

export interface Sink {
  /** Called once, before the first byte: bytes from `offset` on are to be replaced. */
  begin?(start: BodyStart): void | Promise<void>;
  write(chunk: Uint8Array): Promise<void>;
}

const MiB = 1024 * 1024;
const size = (bytes: number) => (bytes >= 1024 * MiB ? `${(bytes / 1024 / MiB).toFixed(0)} GiB` : `${Math.ceil(bytes / MiB)} MiB`);

/** Why `url` may not be fetched at all (scheme, credentials, an internal address literal), or null. */
export function urlProblem(url: URL, allowPrivate: boolean): string | null {
  if (url.protocol !== "http:" && url.protocol !== "https:") return "Only http and https URLs can be imported.";
  if (url.username || url.password) return "The URL must not contain a user name or password.";
  if (!allowPrivate && isAddressLiteral(url.hostname)) {
    const why = blockedAddress(url.hostname);
    if (why) return `The URL points to a ${why} address, which cannot be imported.`;
  }
  return null;
}

/** One GET; resolves with the response head. `track` receives the request so a timer can destroy it. */
function get(url: URL, allowPrivate: boolean, resume: Resume | undefined, track: (r: { destroy(err?: Error): void }) => void): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const secure = url.protocol === "https:";
    const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
    const req = (secure ? https : http).request({
      host,
      port: url.port || (secure ? 443 : 80),
      path: `${url.pathname}${url.search}`,
      method: "GET",
      headers: { "user-agent": "Vidhost-import/1", accept: "*/*", "accept-encoding": "identity", ...resumeHeaders(resume) },
      lookup: guardedLookup(allowPrivate),
      agent: false,
      ...(secure && !isAddressLiteral(url.hostname) ? { servername: host } : {}),
    }, (res) => {
      track(res);
      resolve(res);
    });
    track(req);
    req.on("error", reject);
    req.end();
  });
}

const redirect = (status: number) => status === 301 || status === 302 || status === 303 || status === 307 || status === 308;

/** Maps whatever broke the transfer to an ImportError (network errors are worth a retry). */
function asImportError(err: unknown): ImportError {
  if (err instanceof ImportError) return err;
  if (err instanceof RefusedHostError) {
    return err.why
      ? new ImportError(`The host name ${err.host} resolves to a ${err.why} address, which cannot be imported.`, false)
      : new ImportError(`The host name ${err.host} could not be resolved (${err.code}).`, true);
  }
  const e = err as { code?: string; message?: string };
  return new ImportError(`The download failed (${e.code ?? e.message ?? String(err)}).`, true);
}

/**
 * Streams `start` (following at most `maxRedirects` checked redirects) into `sink`, asking only for
 * what follows `resume.offset` when given. Resolves with the file's whole size. Throws an ImportError
 * with a readable reason; when `signal` aborts (shutdown) its reason is thrown instead.
 */
export async function download(start: URL, sink: Sink, limits: DownloadLimits, signal: AbortSignal, resume?: Resume): Promise<{ bytes: number }> {
  const stop = new AbortController();
  let current: { destroy(err?: Error): void }[] = [];
  const abort = (reason: unknown) => {
    if (stop.signal.aborted) return;
    stop.abort(reason);
    for (const c of current) c.destroy(reason instanceof Error ? reason : new Error(String(reason)));
  };
  const onShutdown = () => abort(signal.reason);
  signal.addEventListener("abort", onShutdown, { once: true });
  const total = setTimeout(() => abort(new ImportError(`The download took longer than ${Math.round(limits.timeoutMs / 1000)} s.`, false)), limits.timeoutMs);
  // Each chunk only notes the time; one timer, re-armed for what is left of the window, watches it
  // (a timer per chunk would be hundreds of thousands for a large file).
  let lastByte = Date.now();
  let idle: ReturnType<typeof setTimeout> | undefined;
  const watchIdle = (waitMs: number) => {
    idle = setTimeout(() => {
      const quietMs = Date.now() - lastByte;
      if (quietMs >= limits.idleMs) abort(new ImportError(`The source server sent nothing for ${Math.round(limits.idleMs / 1000)} s.`, true));
      else watchIdle(limits.idleMs - quietMs);
    }, waitMs);
  };
  const touch = () => {
    lastByte = Date.now();
  };
  watchIdle(limits.idleMs);
  try {
    if (signal.aborted) throw signal.reason;
    let url = start;
    for (let hop = 0; ; hop++) {
      const problem = urlProblem(url, limits.allowPrivate);
      if (problem) throw new ImportError(hop ? `A redirect was refused: ${problem}` : problem, false);
      touch();
      current = [];
      const res = await get(url, limits.allowPrivate, resume, (r) => current.push(r));
      const status = res.statusCode ?? 0;
      if (resume && (status === 416 || (status === 206 && !continuesAt(res.headers["content-range"], resume.offset)))) {
        // Not the continuation asked for: ask the same URL for the whole file.
        res.destroy();
        resume = undefined;
        hop--;
        continue;
      }
      if (redirect(status) && res.headers.location) {
        res.destroy();
        if (hop >= limits.maxRedirects) throw new ImportError(`The URL redirected more than ${limits.maxRedirects} times.`, false);
        url = new URL(res.headers.location, url);
        continue;
      }
      if (status < 200 || status > 299) {
        res.destroy();
        throw new ImportError(`The source URL answered HTTP ${status}.`, status >= 500 || status === 408 || status === 429);
      }
      const offset = status === 206 && resume ? resume.offset : 0;
      const declared = Number(res.headers["content-length"]);
      const tooBig = () => new ImportError(`The file is larger than the ${size(limits.maxBytes)} a video's source may be.`, false);
      if (Number.isFinite(declared) && offset + declared > limits.maxBytes) {
        res.destroy();
        throw tooBig();
      }
      await sink.begin?.({ offset, validator: validatorOf(res.headers) });
      let bytes = offset;
      for await (const chunk of res as AsyncIterable<Uint8Array>) {
        touch();
        bytes += chunk.byteLength;
        if (bytes > limits.maxBytes) {
          res.destroy();
          throw tooBig();
        }
        await sink.write(chunk);
      }
      if (stop.signal.aborted) throw stop.signal.reason;
      if (Number.isFinite(declared) && bytes - offset !== declared) throw new ImportError(`The download ended after ${bytes} of ${offset + declared} bytes.`, true);
      if (!bytes) throw new ImportError("The source URL answered with an empty body.", false);
      return { bytes };
    }
  } catch (err) {
    if (stop.signal.aborted) throw signal.aborted ? signal.reason : asImportError(stop.signal.reason);
    throw asImportError(err);
  } finally {
    clearTimeout(total);
    clearTimeout(idle);
    signal.removeEventListener("abort", onShutdown);
  }
}
