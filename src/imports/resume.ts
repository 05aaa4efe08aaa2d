// What lets an interrupted download continue where it stopped instead of starting over: a
// validator naming the exact bytes (a strong ETag, else Last-Modified), sent back as If-Range with
// a Range from the bytes already kept. A server that changed the file, or ignores ranges, answers
// 200 with the whole file; only a 206 continuing at exactly that offset is taken as a continuation.
import type { IncomingHttpHeaders } from "node:http";

/** Where a download picks up: bytes already kept, and the validator they were fetched under. */
export interface Resume {
  offset: number;
  validator: string;
}

/** The validator of a response's body, or null when it has none usable with If-Range. */
export function validatorOf(headers: IncomingHttpHeaders): string | null {
  const etag = headers.etag?.trim();
  // A weak ETag may stand for different bytes (RFC 9110 §13.1.5): If-Range needs a strong one.
  if (etag && !etag.startsWith("W/")) return etag;
  const modified = headers["last-modified"]?.trim();
  return modified && !Number.isNaN(Date.parse(modified)) ? modified : null;
}

/** The request headers asking for the rest of the file. */
export function resumeHeaders(resume: Resume | undefined): Record<string, string> {
  return resume ? { range: `bytes=${resume.offset}-`, "if-range": resume.validator } : {};
}

/**
 * True when a 206 answer's Content-Range (`bytes first-last/total`) continues the kept bytes at
 * `offset` and runs to the end of the file (a partial range would leave a hole).
 */
export function continuesAt(contentRange: string | undefined, offset: number): boolean {
  const m = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(contentRange?.trim() ?? "");
  if (!m) return false;
  const [first, last, total] = [Number(m[1]), Number(m[2]), Number(m[3])];
  return first === offset && last === total - 1;
}
