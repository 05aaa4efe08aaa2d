// Streaming multipart parser: shapes of bodies, chunk borders at every offset, failures and limits.
import { describe, expect, test } from "bun:test";
import { ApiError } from "../http/errors";
import { boundaryOf, parseMultipart, type FileSink, type MultipartLimits, type PartInfo } from "./multipart";

const B = "----vidhostBoundary7MA4YWxk";
const CT = `multipart/form-data; boundary=${B}`;
const enc = new TextEncoder();

/** A sink that keeps its bytes in memory and records how it ended. */
class MemorySink implements FileSink {
  chunks: Uint8Array[] = [];
  state: "open" | "ended" | "aborted" = "open";
  constructor(readonly info: PartInfo) {}
  async write(chunk: Uint8Array) {
    if (this.state !== "open") throw new Error(`write after ${this.state}`);
    await Promise.resolve(); // an asynchronous sink, like a file
    this.chunks.push(chunk.slice());
  }
  async end() {
    this.state = "ended";
  }
  async abort() {
    this.state = "aborted";
  }
  bytes() {
    return Buffer.concat(this.chunks);
  }
  text() {
    return this.bytes().toString("utf8");
  }
}

/** Runs the parser, keeping every sink it opened. */
async function parse(body: Uint8Array | ReadableStream<Uint8Array>, opts: { contentType?: string; chunk?: ChunkPlan; limits?: MultipartLimits } = {}) {
  const sinks: MemorySink[] = [];
  const stream = body instanceof ReadableStream ? body : streamOf(body, opts.chunk ?? 65536);
  const run = parseMultipart(stream, opts.contentType ?? CT, (info) => {
    const sink = new MemorySink(info);
    sinks.push(sink);
    return sink;
  }, opts.limits);
  return { run, sinks };
}

type ChunkPlan = number | number[] | (() => number);

/** The bytes as a stream cut into chunks: a fixed size, explicit cut sizes, or a size generator. */
function streamOf(bytes: Uint8Array, plan: ChunkPlan, failAfter?: number): ReadableStream<Uint8Array> {
  let offset = 0;
  let i = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (failAfter !== undefined && offset >= failAfter) return controller.error(new Error("connection reset"));
      if (offset >= bytes.length) return controller.close();
      const size = typeof plan === "number" ? plan : Array.isArray(plan) ? (plan[i++] ?? bytes.length) : plan();
      controller.enqueue(bytes.slice(offset, offset + Math.max(1, size)));
      offset += Math.max(1, size);
    },
  });
}

type Part = { name: string; value: string | Uint8Array; filename?: string; type?: string };

/** A body as clients write it. */
function body(parts: Part[], boundary = B, { preamble = "", epilogue = "" } = {}): Uint8Array {
  const pieces: (string | Uint8Array)[] = [preamble];
  for (const p of parts) {
    const disposition = `form-data; name="${p.name}"${p.filename !== undefined ? `; filename="${p.filename}"` : ""}`;
    pieces.push(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n`);
    if (p.type) pieces.push(`Content-Type: ${p.type}\r\n`);
    pieces.push("\r\n", p.value, "\r\n");
  }
  pieces.push(`--${boundary}--\r\n`, epilogue);
  return Buffer.concat(pieces.map((x) => (typeof x === "string" ? enc.encode(x) : x)));
}

/** Deterministic pseudo-random numbers (mulberry32), so a failing split can be replayed. */
function rng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Binary content full of the bytes that start delimiters: CR, LF, dashes and boundary prefixes. */
function nastyContent(size: number, seed: number) {
  const r = rng(seed);
  const alphabet = ["\r", "\n", "-", "\r\n", "\r\n-", "\r\n--", `\r\n--${B.slice(0, 10)}`, `\r\n--${B.slice(0, -1)}`, "x", "\u00e9"];
  const out: string[] = [];
  let n = 0;
  while (n < size) {
    const piece = alphabet[Math.floor(r() * alphabet.length)];
    out.push(piece);
    n += piece.length;
  }
  return enc.encode(out.join(""));
}

async function apiErrorOf(promise: Promise<unknown>): Promise<ApiError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error("expected an ApiError");
}

describe("body shapes", () => {
  test("videoId field before the file", async () => {
    const { run, sinks } = await parse(body([
      { name: "videoId", value: "vi123" },
      { name: "file", filename: "clip.mp4", type: "video/mp4", value: "VIDEO" },
    ]));
    const result = await run;
    expect(result.fields).toEqual({ videoId: "vi123" });
    expect(result.files.map((f) => [f.info, f.size])).toEqual([[{ name: "file", filename: "clip.mp4", contentType: "video/mp4" }, 5]]);
    expect(result.fileCount).toBe(1);
    expect(sinks[0].text()).toBe("VIDEO");
    expect(sinks[0].state).toBe("ended");
  });

  test("videoId field after the file (NODE token sessions), file field named after the file", async () => {
    const { run, sinks } = await parse(body([
      { name: "clip.mp4", filename: "clip.mp4", value: "VIDEO" },
      { name: "videoId", value: "vi123" },
      { name: "title", value: "Grüße" },
    ]));
    const result = await run;
    expect(result.fields).toEqual({ videoId: "vi123", title: "Grüße" });
    expect(result.files[0].info).toEqual({ name: "clip.mp4", filename: "clip.mp4", contentType: null });
    expect(sinks[0].text()).toBe("VIDEO");
  });

  test("quoted boundary with a space, and parameters in any order", async () => {
    const boundary = "a quoted:boundary";
    const { run, sinks } = await parse(body([{ name: "file", filename: "a.mp4", value: "data" }], boundary), {
      contentType: `Multipart/Form-Data; charset=utf-8; boundary="${boundary}"`,
    });
    expect((await run).files).toHaveLength(1);
    expect(sinks[0].text()).toBe("data");
  });

  test("two files, in order", async () => {
    const { run, sinks } = await parse(body([
      { name: "file", filename: "one.mp4", value: "first" },
      { name: "file", filename: "two.mp4", value: "second!" },
    ]));
    const result = await run;
    expect(result.files.map((f) => [f.info.filename, f.size])).toEqual([["one.mp4", 5], ["two.mp4", 7]]);
    expect(sinks.map((s) => s.text())).toEqual(["first", "second!"]);
  });

  test("zero-byte file", async () => {
    const { run, sinks } = await parse(body([{ name: "file", filename: "empty.mp4", value: "" }]));
    const result = await run;
    expect(result.files.map((f) => f.size)).toEqual([0]);
    expect(sinks[0].state).toBe("ended");
    expect(sinks[0].bytes().length).toBe(0);
  });

  test("no file", async () => {
    const { run, sinks } = await parse(body([{ name: "videoId", value: "vi1" }]));
    expect(await run).toEqual({ fields: { videoId: "vi1" }, files: [], fileCount: 0 });
    expect(sinks).toHaveLength(0);
  });

  test("no part at all", async () => {
    expect(await (await parse(enc.encode(`--${B}--\r\n`))).run).toEqual({ fields: {}, files: [], fileCount: 0 });
  });

  test("filename*= (RFC 5987) wins over filename; quoted semicolons and escapes", async () => {
    const raw = enc.encode(
      `--${B}\r\nContent-Disposition: form-data; name="file"; filename="fallback.mp4"; filename*=UTF-8''%E2%82%AC%20clip.mp4\r\n\r\nx\r\n` +
        `--${B}\r\ncontent-disposition: form-data; name=other; filename="a;b \\"c\\".mp4"\r\n\r\ny\r\n--${B}--`,
    );
    const result = await (await parse(raw)).run;
    expect(result.files.map((f) => f.info.filename)).toEqual(["€ clip.mp4", 'a;b "c".mp4']);
    expect(result.files[1].info.name).toBe("other");
  });

  test("an empty filename still makes a file part (a browser's empty file input)", async () => {
    const result = await (await parse(body([{ name: "file", filename: "", type: "application/octet-stream", value: "" }]))).run;
    expect(result.files.map((f) => [f.info.filename, f.size])).toEqual([["", 0]]);
  });
});

describe("CRLF edge cases", () => {
  test("content that ends with CRLF, holds partial delimiters and dashes", async () => {
    const content = `line\r\n\r\n--\r\n--${B.slice(0, -1)}\r\n-${B}\r\n`;
    const { run, sinks } = await parse(body([{ name: "file", filename: "a.txt", value: content }, { name: "note", value: "\r\n" }]));
    const result = await run;
    expect(sinks[0].text()).toBe(content);
    expect(result.fields.note).toBe("\r\n");
  });

  test("preamble, epilogue, transport padding after the boundary, body starting without CRLF", async () => {
    const raw = enc.encode(
      `This is a preamble.\r\n--${B}  \t\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--${B}\r\nContent-Disposition: form-data; name="b"\r\n\r\n2\r\n--${B}--\r\nepilogue, ignored`,
    );
    expect((await (await parse(raw)).run).fields).toEqual({ a: "1", b: "2" });
  });

  test("a closing delimiter without its final CRLF", async () => {
    const raw = enc.encode(`--${B}\r\nContent-Disposition: form-data; name="a"\r\n\r\nv\r\n--${B}--`);
    expect((await (await parse(raw)).run).fields).toEqual({ a: "v" });
  });

  test("header names are case-insensitive; unknown headers are ignored", async () => {
    const raw = enc.encode(`--${B}\r\nCONTENT-TYPE: video/mp4\r\nX-Other: 1\r\ncontent-disposition: form-data; name="f"; filename="v.mp4"\r\n\r\nz\r\n--${B}--\r\n`);
    expect((await (await parse(raw)).run).files[0].info).toEqual({ name: "f", filename: "v.mp4", contentType: "video/mp4" });
  });

  test.each([
    ["no closing delimiter", `--${B}\r\nContent-Disposition: form-data; name="a"\r\n\r\nv\r\n`],
    ["no boundary at all", "just some text"],
    ["a part without Content-Disposition", `--${B}\r\nContent-Type: text/plain\r\n\r\nv\r\n--${B}--`],
    ["a part that is not form-data", `--${B}\r\nContent-Disposition: attachment; name="a"\r\n\r\nv\r\n--${B}--`],
    ["garbage after a boundary", `--${B}garbage\r\nContent-Disposition: form-data; name="a"\r\n\r\nv\r\n--${B}--`],
    ["headers that never end", `--${B}\r\nContent-Disposition: form-data; name="a"\r\nX: ${"y".repeat(20000)}`],
  ])("malformed: %s → invalid-payload", async (_name, raw) => {
    const err = await apiErrorOf((await parse(enc.encode(raw))).run);
    expect([err.status, err.kind]).toEqual([400, "invalid-payload"]);
  });
});

describe("chunk borders", () => {
  const content = nastyContent(700, 1);
  const second = nastyContent(90, 2);
  const raw = body([
    { name: "videoId", value: "vi\r\n--x" },
    { name: "file", filename: "clip.mp4", type: "video/mp4", value: content },
    { name: "file2", filename: "two.bin", value: second },
    { name: "after", value: "tail" },
  ], B, { preamble: "pre\r\n" });

  async function check(plan: ChunkPlan) {
    const { run, sinks } = await parse(raw, { chunk: plan });
    const result = await run;
    expect(result.fields).toEqual({ videoId: "vi\r\n--x", after: "tail" });
    expect(sinks[0].bytes().equals(Buffer.from(content))).toBe(true);
    expect(sinks[1].bytes().equals(Buffer.from(second))).toBe(true);
    expect(result.files.map((f) => f.size)).toEqual([content.length, second.length]);
  }

  test("one byte at a time", () => check(1));

  test("two chunks, cut at every offset", async () => {
    for (let cut = 1; cut < raw.length; cut++) await check([cut]);
  });

  test("three chunks around every offset (cuts 1..60 bytes apart)", async () => {
    for (let cut = 1; cut < raw.length; cut += 3) {
      for (const gap of [1, 2, B.length + 3, B.length + 6, 60]) await check([cut, gap]);
    }
  });

  test("random chunk sizes, many seeds", async () => {
    for (let seed = 1; seed <= 200; seed++) {
      const r = rng(seed);
      const max = [3, 50, 200, 2000][seed % 4];
      await check(() => 1 + Math.floor(r() * max));
    }
  });

  test("a large file through random 1 byte – 256 KiB chunks arrives intact", async () => {
    const big = Buffer.alloc(6 * 1024 * 1024);
    const r = rng(7);
    for (let i = 0; i < big.length; i += 4) big.writeUInt32LE((r() * 2 ** 32) >>> 0, i);
    // Plant delimiter look-alikes across the file.
    for (let i = 1000; i < big.length - 100; i += 99_991) big.write(`\r\n--${B.slice(0, 1 + (i % (B.length - 1)))}`, i, "latin1");
    const r2 = rng(8);
    const { run, sinks } = await parse(body([{ name: "file", filename: "big.bin", value: big }]), { chunk: () => 1 + Math.floor(r2() * 262144) });
    const result = await run;
    expect(result.files[0].size).toBe(big.length);
    expect(sinks[0].bytes().equals(big)).toBe(true);
  });
});

describe("failures and limits", () => {
  test("truncated body: the stream fails mid-file → every sink aborted, throws", async () => {
    const raw = body([
      { name: "file", filename: "one.mp4", value: "complete" },
      { name: "file", filename: "two.mp4", value: nastyContent(5000, 3) },
    ]);
    const { run, sinks } = await parse(streamOf(raw, 512, 2048));
    const err = await apiErrorOf(run);
    expect(err.kind).toBe("invalid-payload");
    expect(sinks.map((s) => s.state)).toEqual(["aborted", "aborted"]);
  });

  test("a body that just stops (no closing boundary) aborts the sinks", async () => {
    const raw = body([{ name: "file", filename: "one.mp4", value: nastyContent(3000, 4) }]).slice(0, 1500);
    const { run, sinks } = await parse(raw, { chunk: 100 });
    expect((await apiErrorOf(run)).kind).toBe("invalid-payload");
    expect(sinks.map((s) => s.state)).toEqual(["aborted"]);
  });

  test("oversized file → uploaded-file-too-large, sinks aborted", async () => {
    const raw = body([
      { name: "file", filename: "ok.mp4", value: "x".repeat(100) },
      { name: "file", filename: "big.mp4", value: "y".repeat(101) },
    ]);
    const { run, sinks } = await parse(raw, { limits: { maxFileBytes: 100 }, chunk: 7 });
    const err = await apiErrorOf(run);
    expect([err.status, err.kind, err.title]).toEqual([400, "uploaded-file-too-large", "The uploaded file is too large."]);
    expect(sinks.map((s) => s.state)).toEqual(["aborted", "aborted"]);
    expect(sinks[1].bytes().length).toBeLessThanOrEqual(100);
  });

  test("a file exactly at maxFileBytes passes", async () => {
    const result = await (await parse(body([{ name: "file", filename: "ok.mp4", value: "x".repeat(100) }]), { limits: { maxFileBytes: 100 } })).run;
    expect(result.files[0].size).toBe(100);
  });

  test("past maxFiles, file parts are counted and drained without a sink", async () => {
    const raw = body([
      { name: "file", filename: "1.mp4", value: "one" },
      { name: "videoId", value: "vi1" },
      { name: "file", filename: "2.mp4", value: "two" },
      { name: "file", filename: "3.mp4", value: "three" },
    ]);
    const { run, sinks } = await parse(raw, { limits: { maxFiles: 1 } });
    const result = await run;
    expect(result.fileCount).toBe(3);
    expect(result.files.map((f) => f.info.filename)).toEqual(["1.mp4"]);
    expect(result.fields).toEqual({ videoId: "vi1" });
    expect(sinks).toHaveLength(1);
  });

  test("a text field over 64 KiB → invalid-payload", async () => {
    const { run } = await parse(body([{ name: "title", value: "t".repeat(64 * 1024 + 1) }, { name: "file", filename: "a", value: "v" }]));
    expect((await apiErrorOf(run)).kind).toBe("invalid-payload");
  });

  test("a text field of exactly 64 KiB passes", async () => {
    const result = await (await parse(body([{ name: "title", value: "t".repeat(64 * 1024) }]))).run;
    expect(result.fields.title.length).toBe(64 * 1024);
  });

  test("text fields over 1 MiB together → invalid-payload, though each is within 64 KiB", async () => {
    const parts = Array.from({ length: 17 }, (_, i) => ({ name: `f${i}`, value: "v".repeat(64 * 1024) }));
    expect((await apiErrorOf((await parse(body(parts))).run)).kind).toBe("invalid-payload");
    const within = await (await parse(body(parts.slice(0, 16)))).run;
    expect(Object.keys(within.fields)).toHaveLength(16);
  });

  test("too many fields → invalid-payload", async () => {
    const parts = Array.from({ length: 6 }, (_, i) => ({ name: `f${i}`, value: "v" }));
    expect((await apiErrorOf((await parse(body(parts), { limits: { maxFields: 5 } })).run)).kind).toBe("invalid-payload");
  });

  test("a failing sink write aborts every sink and rethrows its error", async () => {
    const sinks: MemorySink[] = [];
    const raw = body([{ name: "a", filename: "a", value: "ok" }, { name: "b", filename: "b", value: "boom" }]);
    const run = parseMultipart(streamOf(raw, 16), CT, (info) => {
      const sink = new MemorySink(info);
      if (info.name === "b") sink.write = async () => { throw new Error("disk full"); };
      sinks.push(sink);
      return sink;
    });
    await expect(run).rejects.toThrow("disk full");
    await run.catch(() => {});
    expect(sinks.map((s) => s.state)).toEqual(["aborted", "aborted"]);
  });

  test.each([
    ["application/json"],
    ["multipart/form-data"],
    ["multipart/form-data; boundary="],
    ["multipart/mixed; boundary=abc"],
  ])("Content-Type %p → invalid-payload", (contentType) => {
    let kind = "";
    try {
      boundaryOf(contentType);
    } catch (err) {
      kind = (err as ApiError).kind;
    }
    expect(kind).toBe("invalid-payload");
  });
});

describe("Bun's own FormData encoder", () => {
  test("new Response(formData) parses to the same fields and files", async () => {
    const content = nastyContent(200_000, 9);
    const form = new FormData();
    form.append("videoId", "vi4k0jvEUuaTdRAEjQ4Jfrgz");
    form.append("clip.mp4", new Blob([content], { type: "video/mp4" }), "clip.mp4");
    form.append("title", "Ünïcødé \"quoted\" title\r\nline two");
    form.append("file", new File([new Uint8Array(0)], "naïve name; x.mp4"));
    const response = new Response(form);
    const contentType = response.headers.get("content-type") ?? "";
    const { run, sinks } = await parse(response.body!, { contentType });
    const result = await run;
    expect(result.fields).toEqual({ videoId: "vi4k0jvEUuaTdRAEjQ4Jfrgz", title: "Ünïcødé \"quoted\" title\r\nline two" });
    expect(result.files.map((f) => [f.info.name, f.info.filename, f.size])).toEqual([
      ["clip.mp4", "clip.mp4", content.length],
      ["file", "naïve name; x.mp4", 0],
    ]);
    expect(result.files[0].info.contentType).toBe("video/mp4");
    expect(sinks[0].bytes().equals(Buffer.from(content))).toBe(true);
  });
});
