/**
 * api.video's progressive uploads (`Content-Range: bytes F-T/N` or `part P/N`): parsing, the state
 * kept between chunks, and every §2.4 error. Pure: the caller stores the state and the chunk files.
 *
 * Flow for one ranged request (the caller's side):
 *   1. `range = parseContentRange(header)`; `checkRangeHeader(state, range)`, before reading the body;
 *   2. stream the file part to a temp file (multipart `maxFileBytes: CHUNK_MAX_BYTES`);
 *   3. `checkChunkSize(state, range, size)`;
 *   4. `isDuplicateChunk(state, range)` (a retried byte range) → answer 201 and drop the temp file;
 *   5. in one transaction: reload the state, `checkRangeHeader` again (two chunks may have raced),
 *      `state = recordChunk(...)`, save; when `isComplete(state)`, put `assemblyOrder(state)` together.
 *
 * A chunk whose place in the file is known before its body is read (`chunkOffset`) may be written
 * straight into the partial source at that place; the state marks it `inPlace`, and only the other
 * chunks (stored as files of their own) are copied in when the upload completes.
 *
 * Error precedence: the first violated rule wins, in this order.
 *   - parse: `malformed`.
 *   - header, before the body is read (`checkRangeHeader`): mode switch (`started-with-*`), then
 *     rules on the header alone (totals, from/to, part numbers, a declared byte range over 200 MiB),
 *     then rules against the state (different total, beyond the known total, total too low,
 *     overlap / part already sent, a declared byte range under 5 MiB that is not the last).
 *   - size, after the body was stored (`checkChunkSize`): `range-mismatch`, then too large / too small,
 *     then an empty `part 1/1`.
 */
import { ApiError } from "../http/errors";
import { uploadedFileTooLarge } from "./multipart";

/** Largest total size a byte-range upload may announce. */
export const MAX_TOTAL_BYTES = 52_428_800_000;
/** Largest `to` byte index (inclusive) a byte range may name. */
export const MAX_TO_BYTE = MAX_TOTAL_BYTES - 1;
/** Largest chunk (byte range or part), 200 MiB. */
export const CHUNK_MAX_BYTES = 209_715_200;
/** Smallest chunk except the last one, 5 MiB. */
export const CHUNK_MIN_BYTES = 5_242_880;
/** Largest part number and part total. */
export const MAX_PARTS = 10_000;

export type ContentRange =
  | { mode: "bytes"; from: number; to: number; total: number | null }
  | { mode: "part"; part: number; total: number | null };

/** What the server remembers between chunks of one upload (stored as JSON in the DB by the caller). */
export interface UploadState {
  mode: "bytes" | "part" | null;
  /** bytes mode: total once known. */
  totalBytes: number | null;
  /** bytes mode: received ranges (inclusive), kept sorted by `from`; `inPlace` when written into the partial source, else stored as a chunk file. */
  ranges: { from: number; to: number; inPlace?: true }[];
  /** part mode: total once known (set by `part N/N`, or any `part P/N`). */
  totalParts: number | null;
  /** part mode: received parts, kept sorted by `part`; `inPlace` as for ranges. */
  parts: { part: number; size: number; inPlace?: true }[];
}

/** One received chunk in file order: its storage key, where it lands in the file, its size, and whether it is already there. */
export interface AssemblyPiece {
  key: string;
  offset: number;
  size: number;
  inPlace: boolean;
}

const MiB = 1_048_576;
// 20 digits bound the regex work; any longer number is over every limit anyway.
const GRAMMAR = /^(?:bytes\s+(\d{1,20})-(\d{1,20})|part\s+(\d{1,20}))\/(\d{1,20}|\*)$/i;

const rangeError = (slug: string, title: string, detail?: string, name = "Content-Range") =>
  new ApiError(400, `video-content-range-${slug}`, title, { name, detail });
const bytesError = (slug: string, title: string, detail?: string, name?: string) => rangeError(`by-bytes-${slug}`, title, detail, name);
const partError = (slug: string, title: string, detail?: string, name?: string) => rangeError(`by-part-${slug}`, title, detail, name);

/** Parses the header; throws the `video-content-range-malformed` ApiError when it matches neither grammar. */
export function parseContentRange(header: string): ContentRange {
  const m = GRAMMAR.exec(header.trim());
  if (!m) {
    const shown = header.length > 100 ? `${header.slice(0, 100)}…` : header;
    throw rangeError(
      "malformed",
      "The Content-Range header is malformed.",
      `Expected "bytes <from>-<to>/<total or *>" or "part <part>/<total or *>", got "${shown}".`,
    );
  }
  const total = m[4] === "*" ? null : Number(m[4]);
  if (m[3] !== undefined) return { mode: "part", part: Number(m[3]), total };
  return { mode: "bytes", from: Number(m[1]), to: Number(m[2]), total };
}

/** A fresh state for a video whose upload has not started. */
export function emptyUploadState(): UploadState {
  return { mode: null, totalBytes: null, ranges: [], totalParts: null, parts: [] };
}

/** Throws `video-content-range-already-initiated` when a plain upload (no Content-Range) follows a ranged one. */
export function checkPlainUpload(state: UploadState): void {
  if (state.mode !== null) {
    throw rangeError(
      "already-initiated",
      "A progressive upload has already been initiated for this video.",
      `Continue it with "Content-Range: ${state.mode} …" headers.`,
    );
  }
}

/** Checks a chunk's header against the state BEFORE its body is read (mode switch, totals, overlap, duplicates, limits). Throws the exact ApiError kind. */
export function checkRangeHeader(state: UploadState, range: ContentRange): void {
  if (state.mode === "bytes" && range.mode === "part") {
    throw rangeError("started-with-bytes", "This upload was started with byte ranges; send byte ranges until it is complete.");
  }
  if (state.mode === "part" && range.mode === "bytes") {
    throw rangeError("started-with-part", "This upload was started with parts; send parts until it is complete.");
  }
  if (range.mode === "bytes") checkBytesHeader(state, range);
  else checkPartHeader(state, range);
}

function checkBytesHeader(state: UploadState, { from, to, total }: { from: number; to: number; total: number | null }): void {
  // Rules on the header alone.
  if (total === 0) throw bytesError("total-bytes-zero", "The total number of bytes cannot be 0.");
  if (total !== null && total > MAX_TOTAL_BYTES) {
    throw bytesError("total-bytes-too-high", "The total number of bytes is too high.", `At most ${MAX_TOTAL_BYTES} bytes.`);
  }
  if (from > to) throw bytesError("from-byte-too-high", "The first byte of the range is after its last byte.", `${from} > ${to}.`);
  if (to > MAX_TO_BYTE) {
    throw bytesError("to-byte-too-high-allowed", "The last byte of the range is beyond the largest allowed.", `At most ${MAX_TO_BYTE}.`);
  }
  if (total !== null && to >= total) throw toBeyondTotal(to, total);
  const declared = to - from + 1;
  if (declared > CHUNK_MAX_BYTES) throw rangeTooLarge(declared);
  // Rules against what was received before.
  if (total !== null && state.totalBytes !== null && total !== state.totalBytes) {
    throw bytesError("different-total-bytes", "The total number of bytes differs from the one sent earlier.", `Earlier: ${state.totalBytes}, now: ${total}.`);
  }
  const known = total ?? state.totalBytes;
  if (known !== null && to >= known) throw toBeyondTotal(to, known);
  if (total !== null && state.totalBytes === null) {
    const end = state.ranges.reduce((max, r) => Math.max(max, r.to), -1);
    if (total <= end) {
      throw bytesError("total-bytes-too-low", "The total number of bytes is lower than a range already received.", `Byte ${end} was already received.`);
    }
  }
  // An identical range is a retry (accepted, see isDuplicateChunk); any other intersection is an overlap.
  const duplicate = state.ranges.some((r) => r.from === from && r.to === to);
  const hit = duplicate ? undefined : state.ranges.find((r) => r.from <= to && from <= r.to);
  if (hit) {
    throw bytesError("range-overlap", "The range overlaps a range already received.", `Bytes ${hit.from}-${hit.to} were already received.`);
  }
  // The size exemption needs the total, which may come from the state.
  if (declared < CHUNK_MIN_BYTES && !(known !== null && to === known - 1)) throw rangeTooSmall(declared);
}

function checkPartHeader(state: UploadState, { part, total }: { part: number; total: number | null }): void {
  // Rules on the header alone.
  if (part === 0) throw partError("part-zero", "Part numbers start at 1.");
  if (total === 0) throw partError("total-parts-zero", "The total number of parts cannot be 0.");
  if (part > MAX_PARTS) throw partError("part-too-high-allowed", "The part number is beyond the largest allowed.", `At most ${MAX_PARTS}.`);
  if (total !== null && total > MAX_PARTS) {
    throw partError("total-parts-too-high", "The total number of parts is beyond the largest allowed.", `At most ${MAX_PARTS}.`);
  }
  if (total !== null && part > total) throw partBeyondTotal(part, total);
  // Rules against what was received before.
  if (total !== null && state.totalParts !== null && total !== state.totalParts) {
    throw partError("different-total-parts", "The total number of parts differs from the one sent earlier.", `Earlier: ${state.totalParts}, now: ${total}.`);
  }
  if (state.totalParts !== null && part > state.totalParts) throw partBeyondTotal(part, state.totalParts);
  if (total !== null && state.totalParts === null) {
    // Parts count from 1, so a total equal to the highest part received is consistent (unlike bytes).
    const highest = state.parts.reduce((max, p) => Math.max(max, p.part), 0);
    if (total < highest) {
      throw partError("total-parts-too-low", "The total number of parts is lower than a part already received.", `Part ${highest} was already received.`);
    }
  }
  if (state.parts.some((p) => p.part === part)) throw partError("part-already-sent", "This part has already been sent.", `Part ${part}.`);
}

const toBeyondTotal = (to: number, total: number) =>
  bytesError("to-byte-too-high-total", "The last byte of the range is beyond the total number of bytes.", `Byte ${to} of ${total}.`);
const partBeyondTotal = (part: number, total: number) =>
  partError("part-too-high-total", "The part number is beyond the total number of parts.", `Part ${part} of ${total}.`);
const rangeTooLarge = (size: number) =>
  bytesError("range-too-large", "The range is too large.", `${size} bytes; a chunk is at most ${CHUNK_MAX_BYTES / MiB} MiB.`);
const rangeTooSmall = (size: number) =>
  bytesError("range-too-small", "The range is too small.", `${size} bytes; every chunk but the last is at least ${CHUNK_MIN_BYTES / MiB} MiB.`);

/** Checks the received chunk size AFTER the body was stored to a temp file (range mismatch, too large/too small, part too small). Throws the exact ApiError kind. */
export function checkChunkSize(state: UploadState, range: ContentRange, size: number): void {
  if (range.mode === "bytes") {
    const declared = range.to - range.from + 1;
    if (size !== declared) {
      throw bytesError("range-mismatch", "The file size does not match the Content-Range.", `The range holds ${declared} bytes, the file ${size}.`, "file");
    }
    // Repeated from the header check so this function is safe on its own.
    if (size > CHUNK_MAX_BYTES) throw rangeTooLarge(size);
    const total = range.total ?? state.totalBytes;
    if (size < CHUNK_MIN_BYTES && !(total !== null && range.to === total - 1)) throw rangeTooSmall(size);
    return;
  }
  if (size > CHUNK_MAX_BYTES) throw uploadedFileTooLarge(CHUNK_MAX_BYTES);
  const total = range.total ?? state.totalParts;
  const last = total !== null && range.part === total;
  if (size < CHUNK_MIN_BYTES && !last) {
    throw partError(
      "uploaded-file-too-small",
      "The part is too small.",
      `${size} bytes; every part but the last is at least ${CHUNK_MIN_BYTES / MiB} MiB.`,
      "file",
    );
  }
  // A 0 B last part is fine after other parts, but `part 1/1` with 0 B is an empty video.
  if (size === 0 && total === 1) throw new ApiError(400, "uploaded-file-empty", "The uploaded file is empty.", { name: "file" });
}

/** True when the chunk is a retry of a byte range already received: answer 201 without storing it again. */
export function isDuplicateChunk(state: UploadState, range: ContentRange): boolean {
  return range.mode === "bytes" && state.mode === "bytes" && state.ranges.some((r) => r.from === range.from && r.to === range.to);
}

/** Returns the new state with the chunk recorded (pure, no mutation), `inPlace` when its bytes went straight into the partial source. Does not validate: check first. */
export function recordChunk(state: UploadState, range: ContentRange, size: number, inPlace = false): UploadState {
  const where = inPlace ? { inPlace: true as const } : {};
  if (range.mode === "bytes") {
    const others = state.ranges.filter((r) => !(r.from === range.from && r.to === range.to));
    const ranges = [...others, { from: range.from, to: range.to, ...where }].sort((a, b) => a.from - b.from);
    return { ...state, mode: "bytes", totalBytes: range.total ?? state.totalBytes, ranges };
  }
  const others = state.parts.filter((p) => p.part !== range.part);
  const parts = [...others, { part: range.part, size, ...where }].sort((a, b) => a.part - b.part);
  return { ...state, mode: "part", totalParts: range.total ?? state.totalParts, parts };
}

/** True once the whole file is in: bytes mode when ranges cover 0..total-1; part mode when total is known and parts 1..total are all in. */
export function isComplete(state: UploadState): boolean {
  if (state.mode === "bytes") {
    if (state.totalBytes === null) return false;
    let next = 0;
    for (const r of [...state.ranges].sort((a, b) => a.from - b.from)) {
      if (r.from > next) return false;
      next = Math.max(next, r.to + 1);
    }
    return next === state.totalBytes;
  }
  if (state.mode === "part") {
    const total = state.totalParts;
    if (total === null) return false;
    const have = new Set(state.parts.map((p) => p.part));
    for (let p = 1; p <= total; p++) if (!have.has(p)) return false;
    return true;
  }
  return false;
}

/** Bytes received so far (for a caller-side cap, e.g. the 20 GiB seed rule). */
export function receivedBytes(state: UploadState): number {
  if (state.mode === "bytes") return state.ranges.reduce((sum, r) => sum + r.to - r.from + 1, 0);
  return state.parts.reduce((sum, p) => sum + p.size, 0);
}

/** The storage key for a chunk: the same for a retry, zero-padded so a directory listing sorts in file order. */
export function chunkKey(range: ContentRange): string {
  return range.mode === "bytes" ? bytesKey(range.from, range.to) : partKey(range.part);
}

const bytesKey = (from: number, to: number) => `bytes-${String(from).padStart(11, "0")}-${String(to).padStart(11, "0")}`;
const partKey = (part: number) => `part-${String(part).padStart(5, "0")}`;

/** The order in which to concatenate stored chunks (sorted ranges or parts), with each one's offset in the file. */
export function assemblyOrder(state: UploadState): AssemblyPiece[] {
  if (state.mode === "bytes") {
    return [...state.ranges]
      .sort((a, b) => a.from - b.from)
      .map((r) => ({ key: bytesKey(r.from, r.to), offset: r.from, size: r.to - r.from + 1, inPlace: r.inPlace === true }));
  }
  let offset = 0;
  return [...state.parts]
    .sort((a, b) => a.part - b.part)
    .map((p) => {
      const piece = { key: partKey(p.part), offset, size: p.size, inPlace: p.inPlace === true };
      offset += p.size;
      return piece;
    });
}

/**
 * Where a chunk's bytes start in the file, when known before its body is read: a byte range's
 * `from`; a part's when every part before it is in (the sum of their sizes). Null otherwise (and
 * for a retried byte range, which is not stored again).
 */
export function chunkOffset(state: UploadState, range: ContentRange): number | null {
  if (range.mode === "bytes") return isDuplicateChunk(state, range) ? null : range.from;
  let offset = 0;
  let next = 1;
  for (const p of [...state.parts].sort((a, b) => a.part - b.part)) {
    if (p.part >= range.part) break;
    if (p.part !== next) return null;
    offset += p.size;
    next++;
  }
  return next === range.part ? offset : null;
}

/** The end of the bytes written in place so far (0 when none): the partial source beyond it holds nothing that counts. */
export function inPlaceEnd(state: UploadState): number {
  return assemblyOrder(state).reduce((end, p) => (p.inPlace ? Math.max(end, p.offset + p.size) : end), 0);
}
