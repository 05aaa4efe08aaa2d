// The browser uploader's chunking, independent of XMLHttpRequest: byte ranges, progress, retries.
import { describe, expect, test } from "bun:test";
import { CHUNK_BYTES, contentRange, planChunks, uploadInChunks, type SendChunk } from "./upload";
import { niceCeiling } from "./charts";

describe("planChunks", () => {
  test("byte ranges of at most the chunk size; every one but the last is full", () => {
    expect(planChunks(0)).toEqual([]);
    expect(planChunks(1)).toEqual([{ from: 0, to: 0 }]);
    expect(planChunks(CHUNK_BYTES)).toEqual([{ from: 0, to: CHUNK_BYTES - 1 }]);
    expect(planChunks(CHUNK_BYTES + 1)).toEqual([{ from: 0, to: CHUNK_BYTES - 1 }, { from: CHUNK_BYTES, to: CHUNK_BYTES }]);
    expect(planChunks(25, 10).map((c) => contentRange(c, 25))).toEqual(["bytes 0-9/25", "bytes 10-19/25", "bytes 20-24/25"]);
    // api.video refuses chunks under 5 MiB unless last.
    expect(CHUNK_BYTES).toBeGreaterThanOrEqual(5 * 1024 * 1024);
  });
});

describe("uploadInChunks", () => {
  const file = new Blob([new Uint8Array(25).map((_, i) => i)]);

  test("sends each range with its bytes and reports progress up to 1", async () => {
    const sent: { range: string; bytes: number[] }[] = [];
    const send: SendChunk = async (body, range, progress) => {
      const part = body.get("file") as File;
      expect(part.name).toBe("clip.mp4");
      sent.push({ range, bytes: [...new Uint8Array(await part.arrayBuffer())] });
      progress(part.size / 2);
      return { status: 201, body: "{}" };
    };
    const seen: number[] = [];
    await uploadInChunks(file, "clip.mp4", send, (f) => seen.push(f), 10);
    expect(sent.map((s) => s.range)).toEqual(["bytes 0-9/25", "bytes 10-19/25", "bytes 20-24/25"]);
    expect(sent.flatMap((s) => s.bytes)).toEqual([...Array(25).keys()]);
    expect(seen).toEqual([5 / 25, 10 / 25, 15 / 25, 20 / 25, 22.5 / 25, 1]);
  });

  test("retries a chunk after a 5xx or a network error, twice at most", async () => {
    let calls = 0;
    const flaky: SendChunk = async () => {
      calls++;
      if (calls === 1) throw new Error("connection reset");
      if (calls === 2) return { status: 503, body: "" };
      return { status: 201, body: "{}" };
    };
    await uploadInChunks(file, "x", flaky, () => {}, 100);
    expect(calls).toBe(3);
    const down: SendChunk = async () => ({ status: 500, body: "" });
    await expect(uploadInChunks(file, "x", down, () => {}, 100)).rejects.toThrow("The upload failed (500).");
  });

  test("stops at a 4xx with the API's words", async () => {
    let calls = 0;
    const refuse: SendChunk = async () => {
      calls++;
      return { status: 400, body: JSON.stringify({ title: "The range is too small.", detail: "every chunk but the last is at least 5 MiB." }) };
    };
    await expect(uploadInChunks(file, "x", refuse, () => {}, 10)).rejects.toThrow("The range is too small. every chunk but the last is at least 5 MiB.");
    expect(calls).toBe(1);
    await expect(uploadInChunks(new Blob([]), "x", refuse, () => {})).rejects.toThrow("The file is empty.");
  });
});

test("niceCeiling rounds an axis top to 1, 2 or 5 × 10^k", () => {
  expect([0, 0.04, 0.05, 0.051, 3, 7, 10, 11, 240].map(niceCeiling)).toEqual([1, 0.05, 0.05, 0.1, 5, 10, 10, 20, 500]);
});

test("a 429 waits for Retry-After and sends the same chunk again", async () => {
  const ranges: string[] = [];
  const waited: number[] = [];
  const busy: SendChunk = async (_, range) => {
    ranges.push(range);
    return ranges.length === 2 ? { status: 429, body: "", retryAfterS: 2 } : { status: 201, body: "{}" };
  };
  await uploadInChunks(new Blob([new Uint8Array(20)]), "x", busy, () => {}, 10, async (ms) => waited.push(ms));
  expect(ranges).toEqual(["bytes 0-9/20", "bytes 10-19/20", "bytes 10-19/20"]);
  expect(waited).toEqual([2000]);
  // Not forever: after ten waits the 429 stands.
  const always: SendChunk = async () => ({ status: 429, body: JSON.stringify({ title: "Too many requests." }) });
  await expect(uploadInChunks(new Blob([new Uint8Array(5)]), "x", always, () => {}, 10, async () => {})).rejects.toThrow("Too many requests.");
});
