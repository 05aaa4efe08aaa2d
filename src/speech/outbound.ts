// Calls to engines outside Vidhost (speech-to-text servers, chat servers): every call has a time
// limit, and every way it can go wrong becomes an EngineError with one readable sentence.

/** An engine failed or gave an answer that cannot be used; `reason` is kept on the summary and logged. */
export class EngineError extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = "EngineError";
  }
}

/** The first characters of an error body, on one line, for a reason. */
export function snippet(text: string, max = 200): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max)}…` : line;
}

/** An OpenAI-style endpoint under a base URL: `http://h:8000` → `http://h:8000/v1/{path}`; a base ending in `/v1` (or the full path) is kept. */
export function openAiEndpoint(base: string, path: "audio/transcriptions" | "chat/completions"): string {
  const url = base.replace(/\/+$/, "");
  if (url.endsWith(`/${path}`)) return url;
  return /\/v\d+$/.test(url) ? `${url}/${path}` : `${url}/v1/${path}`;
}

/**
 * POSTs to an engine and returns its parsed JSON answer. `what` names the engine in reasons
 * ("The speech-to-text server"). A shutdown (`signal`) is rethrown as is, not turned into a reason.
 */
export async function postForJson(what: string, url: string, init: { body: BodyInit; headers?: Record<string, string> }, timeoutMs: number, signal?: AbortSignal): Promise<unknown> {
  const timeout = AbortSignal.timeout(timeoutMs);
  const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
  let text: string;
  let status: number;
  try {
    const res = await fetch(url, { method: "POST", body: init.body, headers: init.headers, signal: combined });
    status = res.status;
    text = await res.text();
  } catch (err) {
    if (signal?.aborted) throw signal.reason ?? err;
    if (timeout.aborted) throw new EngineError(`${what} did not answer within ${formatSeconds(timeoutMs)}.`);
    throw new EngineError(`${what} could not be reached: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (status < 200 || status > 299) throw new EngineError(`${what} answered ${status}${text.trim() ? `: ${snippet(text)}` : "."}`);
  try {
    return JSON.parse(text);
  } catch {
    throw new EngineError(`${what} answered with malformed JSON: ${snippet(text, 120) || "an empty body"}`);
  }
}

/** "90 s", "1.5 s". */
export function formatSeconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}

/** Authorization header for an optional bearer key. */
export const bearer = (key: string): Record<string, string> => (key ? { authorization: `Bearer ${key}` } : {});
