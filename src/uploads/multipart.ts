/**
 * A streaming multipart/form-data parser. Bun's `request.formData()` buffers the whole body; uploads
 * carry up to 200 MiB per request, so file parts go chunk by chunk into sinks the caller opens, and
 * memory stays flat: besides text fields (bounded) the parser holds at most one delimiter's length
 * of carry-over, or one part's headers.
 *
 * The search for the delimiter (`CRLF--boundary`) runs with Buffer.indexOf on each incoming chunk as
 * it is (no copy); only a delimiter split across two chunks is found in a small window made of the
 * carried tail and the next chunk's first bytes.
 */
import { ApiError, invalidPayload } from "../http/errors";

export interface PartInfo {
  name: string;
  filename: string | null;
  contentType: string | null;
}

/**
 * Where a file part's bytes go; the caller (storage module) provides it. `end()` is called when the
 * part is complete; `abort()` when the body fails later, possibly after `end()`, and must then remove
 * what was written (so a body cut off mid-way leaves nothing behind).
 */
export interface FileSink {
  write(chunk: Uint8Array): void | Promise<void>;
  end(): Promise<void>;
  abort(): Promise<void>;
}

export interface ParsedFile {
  info: PartInfo;
  size: number;
  sink: FileSink;
}

export interface MultipartResult {
  /** Text fields by name; a repeated name keeps its last value. */
  fields: Record<string, string>;
  /** File parts that got a sink, in body order (at most `maxFiles`), all ended; a caller that then refuses the request calls `sink.abort()` on them. */
  files: ParsedFile[];
  /** Every file part seen, including those past `maxFiles` that were drained without a sink. */
  fileCount: number;
}

export interface MultipartLimits {
  /** Bytes allowed in one stored file part; beyond it `uploaded-file-too-large`. Default: no limit. */
  maxFileBytes?: number;
  /** File parts that get a sink; later ones are read and counted, their bytes dropped. Default: no limit. */
  maxFiles?: number;
  /** Text fields allowed, so many small fields cannot fill memory. Default 1000. */
  maxFields?: number;
}

/** Largest text field value. */
export const MAX_FIELD_BYTES = 64 * 1024;
/** All text fields of one body together: no more than a JSON body may hold. */
export const MAX_FIELDS_TOTAL_BYTES = 1024 * 1024;
/** Largest header block of one part. */
export const MAX_PART_HEADER_BYTES = 16 * 1024;

const CR = 0x0d;
const EMPTY = Buffer.alloc(0);
const CRLF = Buffer.from("\r\n");
const HEADER_END = Buffer.from("\r\n\r\n");
const DASH = 0x2d;

/** 400 `uploaded-file-too-large`: one file part is over the limit. */
export const uploadedFileTooLarge = (limit: number) =>
  new ApiError(400, "uploaded-file-too-large", "The uploaded file is too large.", { name: "file", detail: `A file part may hold at most ${limit} bytes.` });

/** The boundary from a `multipart/form-data; boundary=…` Content-Type; throws `invalid-payload` when absent or invalid. */
export function boundaryOf(contentType: string): string {
  const [mediaType, ...params] = splitParams(contentType);
  if (mediaType.toLowerCase() !== "multipart/form-data") throw invalidPayload("Expected a multipart/form-data body.");
  const boundary = params.find(([key]) => key === "boundary")?.[1];
  // RFC 2046 allows 1–70 characters and no line breaks; be lenient on length, strict on line breaks.
  if (!boundary || boundary.length > 200 || /[\r\n]/.test(boundary)) {
    throw invalidPayload("The multipart/form-data Content-Type has no valid boundary.");
  }
  return boundary;
}

type Phase = "preamble" | "delimiter" | "headers" | "body" | "epilogue";
type Current =
  | { kind: "file"; file: ParsedFile }
  | { kind: "drain" }
  | { kind: "field"; name: string; chunks: Buffer[]; size: number };

/** Parses a multipart body from its stream: text fields (each ≤ 64 KiB, else ApiError invalid-payload 400) collected in memory, every file part streamed into a sink from openSink. On any stream error or malformed body, aborts all sinks and throws (so a body cut off mid-chunk leaves nothing behind). */
export async function parseMultipart(
  body: ReadableStream<Uint8Array>,
  contentType: string,
  openSink: (info: PartInfo) => Promise<FileSink> | FileSink,
  limits: MultipartLimits = {},
): Promise<MultipartResult> {
  const parser = new MultipartParser(boundaryOf(contentType), openSink, limits);
  const reader = body.getReader();
  try {
    for (let chunk = await readChunk(reader); chunk !== null; chunk = await readChunk(reader)) {
      await parser.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    }
    return parser.finish();
  } catch (err) {
    await reader.cancel().catch(() => {});
    await parser.abort();
    throw err;
  } finally {
    reader.releaseLock();
  }
}

/** The next chunk, or null at the end; a failing stream (client gone) becomes `invalid-payload`. */
async function readChunk(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<Uint8Array | null> {
  try {
    const read = await reader.read();
    return read.done ? null : read.value;
  } catch (err) {
    throw Object.assign(invalidPayload("The request body could not be read to its end."), { cause: err });
  }
}

/** The state machine of one body: push chunks in order, then finish (or abort on failure). */
class MultipartParser {
  private readonly delimiter: Buffer;
  private readonly maxFileBytes: number;
  private readonly maxFiles: number;
  private readonly maxFields: number;
  private readonly result: MultipartResult = { fields: {}, files: [], fileCount: 0 };
  private readonly opened: FileSink[] = [];
  // The body may start with the delimiter's dashes directly: a virtual CRLF makes it one search.
  private carry: Buffer = Buffer.from(CRLF);
  private phase: Phase = "preamble";
  private current: Current | null = null;
  private fieldCount = 0;
  private fieldBytes = 0;

  constructor(
    boundary: string,
    private readonly openSink: (info: PartInfo) => Promise<FileSink> | FileSink,
    limits: MultipartLimits,
  ) {
    this.delimiter = Buffer.from(`\r\n--${boundary}`);
    this.maxFileBytes = limits.maxFileBytes ?? Infinity;
    this.maxFiles = limits.maxFiles ?? Infinity;
    this.maxFields = limits.maxFields ?? 1000;
  }

  /** Feeds the next chunk of the body. */
  async push(chunk: Buffer): Promise<void> {
    if (this.phase === "epilogue") return; // whatever follows the closing delimiter is dropped
    let data = await this.join(chunk);
    while (data.length > 0) data = await this.step(data);
  }

  /** The result once the stream ended; throws if the closing delimiter never came. */
  finish(): MultipartResult {
    if (this.phase !== "epilogue") throw malformed("The body ended before its closing boundary.");
    return this.result;
  }

  /** Discards every file written so far, ended or not. */
  async abort(): Promise<void> {
    await Promise.allSettled(this.opened.map((sink) => sink.abort()));
  }

  // Joins the carried tail with a new chunk, copying only a delimiter-sized window where possible.
  private async join(chunk: Buffer): Promise<Buffer> {
    const tail = this.carry;
    if (tail.length === 0) return chunk;
    this.carry = EMPTY;
    const delimiter = this.delimiter;
    if (this.phase !== "body" || chunk.length < delimiter.length) return Buffer.concat([tail, chunk]);
    // In the body the tail is shorter than the delimiter, so a delimiter starting in the tail ends
    // within the chunk's first delimiter.length - 1 bytes.
    const window = Buffer.concat([tail, chunk.subarray(0, delimiter.length - 1)]);
    const at = window.indexOf(delimiter);
    if (at === -1) {
      await this.emit(tail);
      return chunk;
    }
    await this.emit(tail.subarray(0, at));
    await this.closePart();
    this.phase = "delimiter";
    return chunk.subarray(at + delimiter.length - tail.length);
  }

  // Consumes the front of `data` for the current phase; returns what is left (EMPTY once all is used or carried).
  private async step(data: Buffer): Promise<Buffer> {
    switch (this.phase) {
      case "preamble":
      case "body": {
        const at = data.indexOf(this.delimiter);
        if (at === -1) {
          const keep = delimiterPrefixStart(data, this.delimiter);
          if (this.phase === "body") await this.emit(data.subarray(0, keep));
          return this.keepForLater(data.subarray(keep));
        }
        if (this.phase === "body") {
          await this.emit(data.subarray(0, at));
          await this.closePart();
        }
        this.phase = "delimiter";
        return data.subarray(at + this.delimiter.length);
      }
      case "delimiter": {
        // After the boundary: `--` closes the body; otherwise optional whitespace, then CRLF.
        if (data.length < 2) return this.keepForLater(data);
        if (data[0] === DASH && data[1] === DASH) {
          this.phase = "epilogue";
          return EMPTY;
        }
        const eol = data.indexOf(CRLF);
        if (eol === -1) {
          if (data.length > 256) throw malformed("A boundary line is not followed by a line break.");
          return this.keepForLater(data);
        }
        if (!/^[ \t]*$/.test(data.toString("latin1", 0, eol))) throw malformed("A boundary line has trailing characters.");
        this.phase = "headers";
        // Keep the line break so a part without headers is found by the same CRLFCRLF search.
        return data.subarray(eol);
      }
      case "headers": {
        const end = data.indexOf(HEADER_END);
        if (end > MAX_PART_HEADER_BYTES || (end === -1 && data.length > MAX_PART_HEADER_BYTES)) {
          throw malformed("A part's headers are too long.");
        }
        if (end === -1) return this.keepForLater(data);
        await this.openPart(data.subarray(2, end));
        this.phase = "body";
        return data.subarray(end + HEADER_END.length);
      }
      case "epilogue":
        return EMPTY;
    }
  }

  private keepForLater(data: Buffer): Buffer {
    this.carry = Buffer.from(data); // a copy: small, and it must outlive the stream's chunk
    return EMPTY;
  }

  // Hands a slice of the current part's body to its sink, field buffer or the drain.
  private async emit(bytes: Buffer): Promise<void> {
    const current = this.current;
    if (bytes.length === 0 || !current) return;
    if (current.kind === "file") {
      current.file.size += bytes.length;
      if (current.file.size > this.maxFileBytes) throw uploadedFileTooLarge(this.maxFileBytes);
      await current.file.sink.write(bytes);
    } else if (current.kind === "field") {
      current.size += bytes.length;
      if (current.size > MAX_FIELD_BYTES) throw invalidPayload(`The field "${current.name}" is longer than ${MAX_FIELD_BYTES} bytes.`);
      this.fieldBytes += bytes.length;
      if (this.fieldBytes > MAX_FIELDS_TOTAL_BYTES) throw invalidPayload(`The text fields are longer than ${MAX_FIELDS_TOTAL_BYTES} bytes together.`);
      current.chunks.push(Buffer.from(bytes));
    }
  }

  private async openPart(headerBlock: Buffer): Promise<void> {
    const info = partInfo(headerBlock.toString("utf8"));
    if (info.filename === null) {
      if (++this.fieldCount > this.maxFields) throw invalidPayload(`At most ${this.maxFields} fields are accepted.`);
      this.current = { kind: "field", name: info.name, chunks: [], size: 0 };
    } else if (++this.result.fileCount > this.maxFiles) {
      // Past the limit the bytes are counted out and dropped: no sink, no memory.
      this.current = { kind: "drain" };
    } else {
      const sink = await this.openSink(info);
      this.opened.push(sink);
      this.current = { kind: "file", file: { info, size: 0, sink } };
    }
  }

  private async closePart(): Promise<void> {
    const part = this.current;
    this.current = null;
    if (part?.kind === "file") {
      await part.file.sink.end();
      this.result.files.push(part.file);
    } else if (part?.kind === "field") {
      this.result.fields[part.name] = Buffer.concat(part.chunks).toString("utf8");
    }
  }
}

const malformed = (detail: string) => invalidPayload(`Malformed multipart/form-data body: ${detail}`);

/** Where the data's tail may begin a delimiter: the bytes from there on must be carried to the next chunk. */
function delimiterPrefixStart(data: Buffer, delimiter: Buffer): number {
  // The delimiter starts with CR, so only a CR in the last delimiter.length - 1 bytes can begin one.
  let at = data.indexOf(CR, Math.max(0, data.length - delimiter.length + 1));
  while (at !== -1) {
    if (data.subarray(at).equals(delimiter.subarray(0, data.length - at))) return at;
    at = data.indexOf(CR, at + 1);
  }
  return data.length;
}

/** Name, filename and type from a part's header block (lines without the final blank line). */
function partInfo(headerBlock: string): PartInfo {
  let disposition: string | null = null;
  let contentType: string | null = null;
  for (const line of headerBlock.split("\r\n")) {
    const colon = line.indexOf(":");
    if (colon <= 0) continue;
    const key = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (key === "content-disposition") disposition = value;
    else if (key === "content-type") contentType = value;
  }
  if (disposition === null) throw malformed("A part has no Content-Disposition header.");
  const [kind, ...params] = splitParams(disposition);
  if (kind.toLowerCase() !== "form-data") throw malformed(`A part's Content-Disposition is "${kind}", not "form-data".`);
  const get = (key: string) => params.find(([k]) => k === key)?.[1];
  const extended = get("filename*");
  const filename = (extended !== undefined ? decodeExtended(extended) : null) ?? get("filename") ?? null;
  return { name: get("name") ?? "", filename, contentType };
}

/** RFC 5987 `charset'lang'percent-encoded`; null when it cannot be decoded (the plain filename then wins). */
function decodeExtended(value: string): string | null {
  const m = /^([^']*)'[^']*'(.*)$/.exec(value);
  if (!m) return null;
  try {
    if (/^utf-8$/i.test(m[1])) return decodeURIComponent(m[2]);
    return m[2].replace(/%([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  } catch {
    return null;
  }
}

/** Splits `value; key=token; key="quoted \" string"` into the value and [lowercased key, value] pairs. */
function splitParams(header: string): [string, ...[string, string][]] {
  const semi = header.indexOf(";");
  const head = (semi === -1 ? header : header.slice(0, semi)).trim();
  const params: [string, string][] = [];
  const re = /;\s*([^\s=;]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]*))/g;
  for (const m of header.slice(semi === -1 ? header.length : semi).matchAll(re)) {
    const value = m[2] !== undefined ? m[2].replace(/\\(.)/g, "$1") : m[3].trim();
    params.push([m[1].toLowerCase(), value]);
  }
  return [head, ...params];
}
