// Content-Range parsing, state and errors: one table row per §2.4 kind, precedence rows, happy paths.
import { describe, expect, test } from "bun:test";
import { ApiError } from "../http/errors";
import {
  assemblyOrder,
  checkChunkSize,
  checkPlainUpload,
  checkRangeHeader,
  chunkKey,
  chunkOffset,
  CHUNK_MAX_BYTES,
  CHUNK_MIN_BYTES,
  emptyUploadState,
  inPlaceEnd,
  isComplete,
  isDuplicateChunk,
  MAX_TOTAL_BYTES,
  parseContentRange,
  receivedBytes,
  recordChunk,
  type UploadState,
} from "./content-range";

const MiB = 1_048_576;

/** One chunk through the whole pipeline, as the upload route will run it. */
function send(state: UploadState, header: string, size: number, inPlace = false): UploadState {
  const range = parseContentRange(header);
  checkRangeHeader(state, range);
  checkChunkSize(state, range, size);
  return recordChunk(state, range, size, inPlace);
}

/** The state after a list of accepted chunks. */
const after = (chunks: [string, number][]) => chunks.reduce((state, [header, size]) => send(state, header, size), emptyUploadState());

/** The ApiError a call throws (fails the test when it does not throw one). */
function errorOf(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error("expected an ApiError");
}

// A byte range of `size` bytes starting at `from`, for readable rows.
const bytes = (from: number, size: number, total: number | "*") => `bytes ${from}-${from + size - 1}/${total}`;
const M5 = CHUNK_MIN_BYTES;
const FILE = 3 * M5 + 100;

describe("parseContentRange", () => {
  test.each([
    ["bytes 0-99/100", { mode: "bytes", from: 0, to: 99, total: 100 }],
    ["bytes 209715200-419430399/524288000", { mode: "bytes", from: 209715200, to: 419430399, total: 524288000 }],
    ["bytes 0-99/*", { mode: "bytes", from: 0, to: 99, total: null }],
    ["part 2/3", { mode: "part", part: 2, total: 3 }],
    ["part 1/*", { mode: "part", part: 1, total: null }],
    ["  Part 4/4 ", { mode: "part", part: 4, total: 4 }],
  ])("%s", (header, expected) => {
    expect(parseContentRange(header)).toEqual(expected as never);
  });

  test.each(["", "bytes", "bytes 0-99", "bytes=0-99/100", "bytes -1-99/100", "part 1", "part a/3", "part 1/3/4", "chunk 1/2", "bytes 0-99/1e3"])(
    "malformed: %p",
    (header) => {
      const err = errorOf(() => parseContentRange(header));
      expect([err.status, err.kind]).toEqual([400, "video-content-range-malformed"]);
    },
  );
});

describe("one row per error kind", () => {
  // [kind, chunks accepted before, header, body size or null for a header-only check]
  type Row = [kind: string, before: [string, number][], header: string, size: number | null];
  const rows: Row[] = [
    ["video-content-range-malformed", [], "bytes 5-/10", null],
    ["video-content-range-started-with-bytes", [[bytes(0, M5, "*"), M5]], "part 2/*", null],
    ["video-content-range-started-with-part", [["part 1/*", M5]], bytes(M5, M5, "*"), null],
    ["video-content-range-by-bytes-total-bytes-zero", [], "bytes 0-0/0", null],
    ["video-content-range-by-bytes-total-bytes-too-high", [], `bytes 0-99/${MAX_TOTAL_BYTES + 1}`, null],
    ["video-content-range-by-bytes-from-byte-too-high", [], "bytes 10-5/100", null],
    ["video-content-range-by-bytes-to-byte-too-high-allowed", [], "bytes 52428799000-52428800000/*", null],
    ["video-content-range-by-bytes-to-byte-too-high-total", [[bytes(0, M5, FILE), M5]], bytes(FILE - 10, 20, "*"), null],
    ["video-content-range-by-bytes-to-byte-too-high-total", [], "bytes 0-100/100", null],
    ["video-content-range-by-bytes-different-total-bytes", [[bytes(0, M5, FILE), M5]], bytes(M5, M5, FILE + 1), null],
    ["video-content-range-by-bytes-total-bytes-too-low", [[bytes(M5, M5, "*"), M5]], bytes(0, M5, 2 * M5 - 1), null],
    ["video-content-range-by-bytes-range-mismatch", [], bytes(0, M5, FILE), M5 - 1],
    ["video-content-range-by-bytes-range-too-large", [], bytes(0, CHUNK_MAX_BYTES + 1, "*"), null],
    ["video-content-range-by-bytes-range-too-small", [], bytes(0, M5 - 1, "*"), null],
    ["video-content-range-by-bytes-range-too-small", [], bytes(0, M5 - 1, FILE), null],
    ["video-content-range-by-bytes-range-overlap", [[bytes(0, M5, "*"), M5]], bytes(M5 - 1, M5, "*"), null],
    ["video-content-range-by-bytes-range-overlap", [[bytes(M5, M5, "*"), M5]], bytes(0, 3 * M5, "*"), null],
    ["video-content-range-by-part-part-zero", [], "part 0/3", null],
    ["video-content-range-by-part-total-parts-zero", [], "part 1/0", null],
    ["video-content-range-by-part-part-too-high-allowed", [], "part 10001/*", null],
    ["video-content-range-by-part-total-parts-too-high", [], "part 1/10001", null],
    ["video-content-range-by-part-part-too-high-total", [], "part 4/3", null],
    ["video-content-range-by-part-part-too-high-total", [["part 3/3", 10]], "part 4/*", null],
    ["video-content-range-by-part-different-total-parts", [["part 3/3", 10]], "part 1/4", null],
    ["video-content-range-by-part-total-parts-too-low", [["part 1/*", M5], ["part 2/*", M5], ["part 3/*", M5]], "part 2/2", null],
    ["video-content-range-by-part-part-already-sent", [["part 1/*", M5]], "part 1/*", null],
    ["video-content-range-by-part-part-already-sent", [["part 2/2", 10]], "part 2/2", null],
    ["video-content-range-by-part-uploaded-file-too-small", [], "part 1/*", M5 - 1],
    ["video-content-range-by-part-uploaded-file-too-small", [], "part 1/3", 0],
    ["uploaded-file-too-large", [], "part 1/*", CHUNK_MAX_BYTES + 1],
    ["uploaded-file-empty", [], "part 1/1", 0],
  ];

  test.each(rows.map((row) => [`${row[0]} ← ${row[2]} after ${row[1].length} chunk(s)`, ...row] as const))("%s", (_name, kind, before, header, size) => {
    const state = after(before);
    const err = errorOf(() => {
      const range = parseContentRange(header);
      checkRangeHeader(state, range);
      if (size !== null) checkChunkSize(state, range, size);
    });
    expect(err.kind).toBe(kind);
    expect(err.status).toBe(400);
    expect(err.title.length).toBeGreaterThan(10);
    expect(err.body("https://docs.api.video")).toMatchObject({ type: `https://docs.api.video/reference/${kind}`, status: 400 });
  });

  test("video-content-range-already-initiated: a plain upload after a ranged one began", () => {
    expect(() => checkPlainUpload(emptyUploadState())).not.toThrow();
    for (const state of [after([["part 1/*", M5]]), after([[bytes(0, M5, "*"), M5]])]) {
      expect(errorOf(() => checkPlainUpload(state)).kind).toBe("video-content-range-already-initiated");
    }
  });

  test("every §2.4 Content-Range kind is covered by a row", () => {
    const covered = new Set(rows.map(([kind]) => kind));
    const slugs = [
      "malformed", "started-with-bytes", "started-with-part",
      "by-bytes-total-bytes-zero", "by-bytes-total-bytes-too-high", "by-bytes-from-byte-too-high",
      "by-bytes-to-byte-too-high-allowed", "by-bytes-to-byte-too-high-total", "by-bytes-different-total-bytes",
      "by-bytes-total-bytes-too-low", "by-bytes-range-mismatch", "by-bytes-range-too-large", "by-bytes-range-too-small",
      "by-bytes-range-overlap", "by-part-part-zero", "by-part-total-parts-zero", "by-part-part-too-high-allowed",
      "by-part-total-parts-too-high", "by-part-part-too-high-total", "by-part-different-total-parts",
      "by-part-total-parts-too-low", "by-part-part-already-sent", "by-part-uploaded-file-too-small",
    ];
    expect(slugs.filter((s) => !covered.has(`video-content-range-${s}`))).toEqual([]);
  });
});

describe("precedence", () => {
  test.each([
    // [why, chunks before, header, size, expected kind]
    ["mode switch before anything else", [["part 1/*", M5]], "bytes 10-5/0", null, "started-with-part"],
    ["total zero before from > to", [], "bytes 10-5/0", null, "by-bytes-total-bytes-zero"],
    ["from > to before to over the maximum", [], "bytes 52428800001-52428800000/*", null, "by-bytes-from-byte-too-high"],
    ["header alone before state: declared too large before different total", [[bytes(0, M5, 2 * CHUNK_MAX_BYTES), M5]], bytes(M5, CHUNK_MAX_BYTES + 1, 2 * CHUNK_MAX_BYTES + 1), null, "by-bytes-range-too-large"],
    ["overlap before too small", [[bytes(0, M5, "*"), M5]], bytes(10, 20, "*"), null, "by-bytes-range-overlap"],
    ["header checks before size checks", [[bytes(0, M5, "*"), M5]], bytes(10, M5, "*"), 3, "by-bytes-range-overlap"],
    ["mismatch before too small", [], bytes(0, M5, "*"), 10, "by-bytes-range-mismatch"],
    ["part zero before total zero", [], "part 0/0", null, "by-part-part-zero"],
    ["part over its own total before state rules", [["part 2/2", 1]], "part 3/2", null, "by-part-part-too-high-total"],
    ["different total before part beyond the known total", [["part 2/2", 1]], "part 3/4", null, "by-part-different-total-parts"],
    ["total too low before already sent", [["part 1/*", M5], ["part 2/*", M5]], "part 1/1", null, "by-part-total-parts-too-low"],
    ["a total equal to the highest part is consistent", [["part 1/*", M5], ["part 2/*", M5]], "part 2/2", null, "by-part-part-already-sent"],
    ["already sent before size", [["part 1/*", M5]], "part 1/*", 3, "by-part-part-already-sent"],
  ] as [string, [string, number][], string, number | null, string][])("%s", (_why, before, header, size, slug) => {
    const state = after(before);
    const err = errorOf(() => {
      const range = parseContentRange(header);
      checkRangeHeader(state, range);
      if (size !== null) checkChunkSize(state, range, size);
    });
    expect(err.kind).toBe(slug.startsWith("uploaded-") ? slug : `video-content-range-${slug}`);
  });
});

describe("happy paths", () => {
  test("NODE-style part 1/*, part 2/*, part 3/3", () => {
    let state = send(emptyUploadState(), "part 1/*", 50 * MiB);
    expect(isComplete(state)).toBe(false);
    state = send(state, "part 2/*", 50 * MiB);
    expect(isComplete(state)).toBe(false);
    state = send(state, "part 3/3", 1234);
    expect(isComplete(state)).toBe(true);
    expect(assemblyOrder(state)).toEqual([
      { key: "part-00001", offset: 0, size: 50 * MiB, inPlace: false },
      { key: "part-00002", offset: 50 * MiB, size: 50 * MiB, inPlace: false },
      { key: "part-00003", offset: 100 * MiB, size: 1234, inPlace: false },
    ]);
    expect(receivedBytes(state)).toBe(100 * MiB + 1234);
  });

  test("part 1/1: a single small part is the whole file", () => {
    const state = send(emptyUploadState(), "part 1/1", 1000);
    expect(isComplete(state)).toBe(true);
    expect(assemblyOrder(state)).toEqual([{ key: "part-00001", offset: 0, size: 1000, inPlace: false }]);
  });

  test("parts out of order, the last first; total known from part 2/3", () => {
    let state = send(emptyUploadState(), "part 3/*", M5);
    state = send(state, "part 2/3", M5);
    expect(state.totalParts).toBe(3);
    expect(isComplete(state)).toBe(false);
    state = send(state, "part 1/3", M5);
    expect(isComplete(state)).toBe(true);
    expect(assemblyOrder(state).map((p) => p.key)).toEqual(["part-00001", "part-00002", "part-00003"]);
  });

  test("0-byte last part", () => {
    let state = send(emptyUploadState(), "part 1/*", M5);
    state = send(state, "part 2/2", 0);
    expect(isComplete(state)).toBe(true);
    expect(assemblyOrder(state)).toEqual([
      { key: "part-00001", offset: 0, size: M5, inPlace: false },
      { key: "part-00002", offset: M5, size: 0, inPlace: false },
    ]);
  });

  test("bytes in 3 chunks, out of order, the total arriving last", () => {
    let state = send(emptyUploadState(), bytes(M5, M5, "*"), M5);
    state = send(state, bytes(0, M5, "*"), M5);
    expect(isComplete(state)).toBe(false);
    expect(state.totalBytes).toBeNull();
    state = send(state, bytes(2 * M5, 100, 2 * M5 + 100), 100);
    expect(isComplete(state)).toBe(true);
    expect(assemblyOrder(state)).toEqual([
      { key: chunkKey(parseContentRange(bytes(0, M5, "*"))), offset: 0, size: M5, inPlace: false },
      { key: chunkKey(parseContentRange(bytes(M5, M5, "*"))), offset: M5, size: M5, inPlace: false },
      { key: chunkKey(parseContentRange(bytes(2 * M5, 100, "*"))), offset: 2 * M5, size: 100, inPlace: false },
    ]);
    expect(assemblyOrder(state)[0].key).toBe("bytes-00000000000-00005242879");
  });

  test("bytes: the small last chunk first, with its total", () => {
    let state = send(emptyUploadState(), bytes(2 * M5, 100, 2 * M5 + 100), 100);
    state = send(state, bytes(0, M5, "*"), M5);
    expect(isComplete(state)).toBe(false);
    state = send(state, bytes(M5, M5, "*"), M5);
    expect(isComplete(state)).toBe(true);
  });

  test("retried identical byte range is a duplicate, accepted without a second copy", () => {
    const first = after([[bytes(0, M5, FILE), M5]]);
    const retry = parseContentRange(bytes(0, M5, FILE));
    expect(isDuplicateChunk(first, retry)).toBe(true);
    expect(() => checkRangeHeader(first, retry)).not.toThrow();
    expect(() => checkChunkSize(first, retry, M5)).not.toThrow();
    expect(recordChunk(first, retry, M5)).toEqual(first);
    expect(isDuplicateChunk(first, parseContentRange(bytes(M5, M5, FILE)))).toBe(false);
    expect(isDuplicateChunk(after([["part 1/*", M5]]), parseContentRange("part 1/*"))).toBe(false);
  });

  test("recordChunk does not mutate its input", () => {
    const state = emptyUploadState();
    const frozen = JSON.stringify(state);
    send(state, "part 1/*", M5);
    expect(JSON.stringify(state)).toBe(frozen);
  });

  test("the state survives a JSON round trip", () => {
    const state = JSON.parse(JSON.stringify(after([[bytes(0, M5, "*"), M5]]))) as UploadState;
    expect(isComplete(send(state, bytes(M5, 10, M5 + 10), 10))).toBe(true);
  });
});

describe("writing in place", () => {
  const M5 = CHUNK_MIN_BYTES;
  const offset = (state: UploadState, header: string) => chunkOffset(state, parseContentRange(header));

  test("a byte range's place is its first byte, in any order; a retried range has none (it is not stored again)", () => {
    let state = emptyUploadState();
    expect(offset(state, bytes(M5, M5, "*"))).toBe(M5);
    state = send(state, bytes(M5, M5, "*"), M5, true);
    expect(offset(state, bytes(M5, M5, "*"))).toBeNull();
    expect(offset(state, bytes(0, M5, "*"))).toBe(0);
  });

  test("a part's place is known once every part before it is in", () => {
    let state = emptyUploadState();
    expect(offset(state, "part 1/*")).toBe(0);
    expect(offset(state, "part 2/*")).toBeNull();
    state = send(state, "part 1/*", M5 + 7, true);
    expect(offset(state, "part 2/*")).toBe(M5 + 7);
    expect(offset(state, "part 3/*")).toBeNull();
    state = send(state, "part 3/*", M5);
    expect(offset(state, "part 2/3")).toBe(M5 + 7);
    state = send(state, "part 2/3", M5, true);
    expect(isComplete(state)).toBe(true);
  });

  test("the state marks chunks written in place; assembly copies only the others", () => {
    let state = send(emptyUploadState(), "part 1/*", M5, true);
    state = send(state, "part 3/3", 100);
    expect(inPlaceEnd(state)).toBe(M5);
    state = send(state, "part 2/3", M5, true);
    expect(state.parts).toEqual([{ part: 1, size: M5, inPlace: true }, { part: 2, size: M5, inPlace: true }, { part: 3, size: 100 }]);
    expect(assemblyOrder(state).map((p) => [p.offset, p.inPlace])).toEqual([[0, true], [M5, true], [2 * M5, false]]);
    expect(inPlaceEnd(state)).toBe(2 * M5);
  });

  test("bytes: the end of what is in place is the furthest in-place range, not the last received", () => {
    let state = send(emptyUploadState(), bytes(2 * M5, M5, "*"), M5, true);
    state = send(state, bytes(0, M5, "*"), M5);
    expect(inPlaceEnd(state)).toBe(3 * M5);
    expect(state.ranges).toEqual([{ from: 0, to: M5 - 1 }, { from: 2 * M5, to: 3 * M5 - 1, inPlace: true }]);
    expect(inPlaceEnd(emptyUploadState())).toBe(0);
  });
});
