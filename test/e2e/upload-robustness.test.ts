// Uploads under bad conditions: a body cut off mid-chunk (the socket closed, or the client's body
// stream failing), retried chunks, and a 300 MiB upload whose server memory must stay flat.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { mediaTempDir } from "../fixtures/media";
import { basic, startTestAppliance, waitFor, type TestAppliance } from "../helpers";
import {
  encodeJobs, fileSize, form, MiB, noise, partialPath, postChunk, sha256File, sourcePath, statusOf, tempFiles, UNLIMITED, videoDir,
} from "./upload-helpers";

setDefaultTimeout(120_000);

let app: TestAppliance;

beforeAll(async () => {
  app = await startTestAppliance({ env: UNLIMITED });
  await app.ctx.queue.stop();
});
afterAll(async () => {
  await app.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const dirs: string[] = [];
/** A temp folder removed after the file's tests. */
function scratch(): string {
  const dir = mediaTempDir();
  dirs.push(dir);
  return dir;
}

const M = 5 * MiB;

async function newVideo(title: string): Promise<string> {
  const res = await app.api(app.sandboxKey, "POST", "/videos", { title });
  return ((await res.json()) as { videoId: string }).videoId;
}

/** The original file: two 5 MiB chunks and a short last one. */
function original() {
  const bytes = noise(2 * M + 12_345);
  const file = join(scratch(), "original.bin");
  writeFileSync(file, bytes);
  const total = bytes.length;
  const chunks = [
    { range: `bytes 0-${M - 1}/${total}`, part: "part 1/3", bytes: bytes.subarray(0, M) },
    { range: `bytes ${M}-${2 * M - 1}/${total}`, part: "part 2/3", bytes: bytes.subarray(M, 2 * M) },
    { range: `bytes ${2 * M}-${total - 1}/${total}`, part: "part 3/3", bytes: bytes.subarray(2 * M) },
  ];
  return { file, total, chunks };
}

const chunkFiles = (videoId: string) => {
  try {
    return readdirSync(join(videoDir(app, app.projectId, "sandbox", videoId), "chunks"));
  } catch {
    return [];
  }
};

/** The partial source's size (0 when absent): a chunk written in place grows it beyond what was recorded. */
const partialSize = (videoId: string) => fileSize(partialPath(app, app.projectId, "sandbox", videoId)) ?? 0;

/** True once the server is storing a chunk's body: into a temp file, or in place past the `recorded` bytes of the partial source. */
const storing = (videoId: string, recorded: number) => tempFiles(app).length > 0 || partialSize(videoId) > recorded;

/** The multipart envelope of one file part, for hand-made bodies. */
function envelope(boundary: string, filename: string) {
  return {
    head: Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`),
    tail: Buffer.from(`\r\n--${boundary}--\r\n`),
  };
}

/** Sends half of a chunk's body over a raw socket, waits until the server is writing it, then hangs up. */
async function cutBySocket(videoId: string, contentRange: string, bytes: Uint8Array, recorded: number) {
  const boundary = "cutoffboundary";
  const { head, tail } = envelope(boundary, "chunk.bin");
  const { port } = new URL(app.urls.sandbox);
  const socket = await Bun.connect({ hostname: "127.0.0.1", port: Number(port), socket: { data() {} } });
  socket.write([
    `POST /videos/${videoId}/source HTTP/1.1`, `Host: 127.0.0.1:${port}`, `Authorization: ${basic(app.sandboxKey)}`,
    `Content-Type: multipart/form-data; boundary=${boundary}`, `Content-Range: ${contentRange}`,
    `Content-Length: ${head.length + bytes.length + tail.length}`, "", "",
  ].join("\r\n"));
  socket.write(head);
  // Bun's socket.write may accept less than given; push until the half is out.
  let sent = 0;
  const half = bytes.subarray(0, bytes.length >> 1);
  while (sent < half.length) {
    const n = socket.write(half.subarray(sent));
    sent += n;
    if (n === 0) await new Promise((r) => setTimeout(r, 1));
  }
  await waitFor("the server to start storing the chunk", () => storing(videoId, recorded));
  socket.terminate();
}

/** Streams half of a chunk through fetch, waits until the server is writing it, then fails the body stream. */
async function cutByStream(videoId: string, contentRange: string, bytes: Uint8Array, recorded: number) {
  const boundary = "streamboundary";
  const { head } = envelope(boundary, "chunk.bin");
  let step = 0;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (step === 0) controller.enqueue(head);
      else if (step === 1) controller.enqueue(bytes.subarray(0, bytes.length >> 1));
      else {
        await waitFor("the server to start storing the chunk", () => storing(videoId, recorded));
        controller.error(new Error("client gave up"));
      }
      step++;
    },
  });
  const outcome = await fetch(`${app.urls.sandbox}/videos/${videoId}/source`, {
    method: "POST",
    headers: { authorization: basic(app.sandboxKey), "content-type": `multipart/form-data; boundary=${boundary}`, "content-range": contentRange },
    body,
  }).then((r) => r.status, () => "failed");
  // Either the request failed on the client side or the server refused it; it never succeeded.
  expect(outcome).not.toBe(201);
}

describe("a body cut off mid-chunk stores nothing, and the same chunk retried is accepted", () => {
  const cases = [
    { how: "socket closed", mode: "bytes", cut: cutBySocket },
    { how: "socket closed", mode: "part", cut: cutBySocket },
    { how: "client body stream errors", mode: "bytes", cut: cutByStream },
    { how: "client body stream errors", mode: "part", cut: cutByStream },
  ] as const;
  for (const { how, mode, cut } of cases) {
    test(`${how}, ${mode} ranges`, async () => {
      const { file, total, chunks } = original();
      const videoId = await newVideo(`${how} ${mode}`);
      const header = (c: (typeof chunks)[number]) => (mode === "bytes" ? c.range : c.part);
      const send = (c: (typeof chunks)[number]) => postChunk(app, app.sandboxKey, `/videos/${videoId}/source`, form([{ bytes: c.bytes }]), header(c));

      expect((await send(chunks[0])).status).toBe(201);
      const before = await statusOf(app, app.sandboxKey, videoId);

      // The second chunk's place is known, so it goes straight into the partial source after the first.
      expect(partialSize(videoId)).toBe(M);
      await cut(videoId, header(chunks[1]), chunks[1].bytes, M);
      // Cut off, it leaves no temp file, and the partial source is cut back to what was recorded.
      await waitFor("the cut-off chunk to be dropped", () => tempFiles(app).length === 0 && partialSize(videoId) === M);
      expect(await statusOf(app, app.sandboxKey, videoId)).toEqual(before);
      expect(chunkFiles(videoId)).toEqual(["partial"]);

      expect((await send(chunks[1])).status).toBe(201);
      expect((await send(chunks[2])).status).toBe(201);
      const after = await statusOf(app, app.sandboxKey, videoId);
      expect(after.ingest.status).toBe("uploaded");
      expect(after.ingest.filesize).toBe(total);
      expect(await sha256File(sourcePath(app, app.projectId, "sandbox", videoId))).toBe(await sha256File(file));
      expect(chunkFiles(videoId)).toEqual([]);
      expect(tempFiles(app)).toEqual([]);
      expect(encodeJobs(app, videoId)).toHaveLength(1);
    });
  }
});

test("a retried identical byte range is accepted once: 201, stored once", async () => {
  const { file, total, chunks } = original();
  const videoId = await newVideo("retried");
  const send = (c: (typeof chunks)[number]) => postChunk(app, app.sandboxKey, `/videos/${videoId}/source`, form([{ bytes: c.bytes }]), c.range);
  expect((await send(chunks[1])).status).toBe(201);
  const retry = await send(chunks[1]);
  expect(retry.status).toBe(201);
  expect(((await retry.json()) as { videoId: string }).videoId).toBe(videoId);
  // A byte range's place is known, so even this first-received middle chunk went in place; the retry stored nothing.
  expect(chunkFiles(videoId)).toEqual(["partial"]);
  expect(partialSize(videoId)).toBe(2 * M);
  const status = await statusOf(app, app.sandboxKey, videoId);
  expect(status.ingest.receivedBytes).toEqual([{ from: M, to: 2 * M - 1, total }]);
  expect(status.ingest.status).toBe("uploading");

  // A retry whose bytes differ in length is a range mismatch, not a silent overwrite.
  const short = await postChunk(app, app.sandboxKey, `/videos/${videoId}/source`, form([{ bytes: chunks[1].bytes.subarray(1) }]), chunks[1].range);
  expect(short.status).toBe(400);
  expect(((await short.json()) as { type: string }).type).toEndWith("/reference/video-content-range-by-bytes-range-mismatch");

  expect((await send(chunks[2])).status).toBe(201);
  expect((await send(chunks[0])).status).toBe(201);
  // The last chunk retried after completion (its answer was lost) is still a 201.
  expect((await send(chunks[0])).status).toBe(201);
  const done = await statusOf(app, app.sandboxKey, videoId);
  expect(done.ingest.status).toBe("uploaded");
  expect(done.ingest.filesize).toBe(total);
  expect(done.ingest.receivedBytes.map((r) => r.from)).toEqual([0, M, 2 * M]);
  expect(await sha256File(sourcePath(app, app.projectId, "sandbox", videoId))).toBe(await sha256File(file));
  expect(encodeJobs(app, videoId)).toHaveLength(1);
  expect(tempFiles(app)).toEqual([]);
});

test("two chunks of one upload racing each other both land, the source assembled once", async () => {
  const { file, chunks } = original();
  const videoId = await newVideo("racing");
  const results = await Promise.all(chunks.map((c) => postChunk(app, app.sandboxKey, `/videos/${videoId}/source`, form([{ bytes: c.bytes }]), c.part)));
  expect(results.map((r) => r.status)).toEqual([201, 201, 201]);
  expect((await statusOf(app, app.sandboxKey, videoId)).ingest.status).toBe("uploaded");
  expect(await sha256File(sourcePath(app, app.projectId, "sandbox", videoId))).toBe(await sha256File(file));
  expect(encodeJobs(app, videoId)).toHaveLength(1);
});

test("server memory stays flat while 300 MiB arrive in three 100 MiB chunks", async () => {
  const CHUNK = 100 * MiB;
  // The client runs in its own process, so this process's RSS is the server's alone. It generates
  // random bytes as it sends them (never holding a chunk) and prints the whole file's SHA-256.
  const script = join(scratch(), "client.ts");
  writeFileSync(script, CLIENT);
  async function upload(chunk: number, chunks: number) {
    const videoId = await newVideo(`large ${chunk}`);
    const child = Bun.spawn([process.execPath, script, `${app.urls.sandbox}/videos/${videoId}/source`, basic(app.sandboxKey), String(chunk), String(chunks)], {
      stdout: "pipe", stderr: "pipe",
    });
    const [out, err, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
    expect({ code, err }).toEqual({ code: 0, err: "" });
    const lines = out.trim().split("\n");
    expect(lines.slice(0, chunks)).toEqual(Array(chunks).fill("201"));
    const status = await statusOf(app, app.sandboxKey, videoId);
    expect(status.ingest.status).toBe("uploaded");
    expect(status.ingest.filesize).toBe(chunk * chunks);
    expect(await sha256File(sourcePath(app, app.projectId, "sandbox", videoId))).toBe(lines[chunks]);
    expect(tempFiles(app)).toEqual([]);
  }
  // A small upload first brings the server's buffers and allocator to their working size.
  await upload(10 * MiB, 3);
  // What must stay flat is the memory the server holds, not the garbage it has yet to collect, nor
  // what the allocator keeps mapped: RSS in this shared test process also moves with whatever other
  // suites left running. Collecting at each sample and reading the retained heap (which counts array
  // buffers, so a body buffered in memory shows at once) measures exactly the thing under test.
  Bun.gc(true);
  const baseline = process.memoryUsage().heapUsed;
  let peak = baseline;
  const sampler = setInterval(() => {
    Bun.gc(true);
    peak = Math.max(peak, process.memoryUsage().heapUsed);
  }, 50);
  try {
    await upload(CHUNK, 3);
  } finally {
    clearInterval(sampler);
  }
  Bun.gc(true);
  peak = Math.max(peak, process.memoryUsage().heapUsed);
  expect(Math.round((peak - baseline) / MiB)).toBeLessThan(100);
});

/** The upload client of the memory test: `bun client.ts <url> <authorization> <chunkBytes> <chunks>`. */
const CLIENT = `
import { createHash, randomBytes } from "node:crypto";
const [url, authorization, chunkArg, countArg] = process.argv.slice(2);
const chunk = Number(chunkArg), count = Number(countArg), total = chunk * count;
const hash = createHash("sha256");
for (let i = 0; i < count; i++) {
  const boundary = "memory" + i;
  const parts = [
    Buffer.from("--" + boundary + "\\r\\nContent-Disposition: form-data; name=\\"file\\"; filename=\\"large.bin\\"\\r\\n\\r\\n"),
    null,
    Buffer.from("\\r\\n--" + boundary + "--\\r\\n"),
  ];
  let left = chunk, step = 0;
  const body = new ReadableStream({
    pull(controller) {
      if (step === 0) { controller.enqueue(parts[0]); step = 1; return; }
      if (step === 1) {
        const piece = randomBytes(Math.min(1048576, left));
        hash.update(piece);
        controller.enqueue(new Uint8Array(piece));
        left -= piece.length;
        if (left === 0) step = 2;
        return;
      }
      if (step === 2) { controller.enqueue(parts[2]); step = 3; return; }
      controller.close();
    },
  });
  const res = await fetch(url, {
    method: "POST",
    headers: { authorization, "content-type": "multipart/form-data; boundary=" + boundary, "content-range": "bytes " + i * chunk + "-" + ((i + 1) * chunk - 1) + "/" + total },
    body,
  });
  await res.arrayBuffer();
  console.log(res.status);
}
console.log(hash.digest("hex"));
`;

for (const range of [undefined, "part 1/*", "part 1/1"]) {
  test(`a video deleted while its upload (${range ?? "no range"}) streams in: 404, and nothing left behind`, async () => {
    const videoId = await newVideo("deleted mid-upload");
    const boundary = "deleteboundary";
    const { head, tail } = envelope(boundary, "chunk.bin");
    const bytes = noise(M);
    let step = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (step === 0) controller.enqueue(head);
        else if (step === 1) controller.enqueue(bytes.subarray(0, M / 2));
        else if (step === 2) {
          await waitFor("the server to start storing the chunk", () => storing(videoId, 0));
          expect((await app.api(app.sandboxKey, "DELETE", `/videos/${videoId}`)).status).toBe(204);
          controller.enqueue(bytes.subarray(M / 2));
        } else if (step === 3) controller.enqueue(tail);
        else controller.close();
        step++;
      },
    });
    const headers: Record<string, string> = { "content-type": `multipart/form-data; boundary=${boundary}` };
    const res = await postChunk(app, app.sandboxKey, `/videos/${videoId}/source`, body, range, headers);
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(((await res.json()) as { name: string }).name).toBe("videoId");
    expect(tempFiles(app)).toEqual([]);
    expect(existsSync(videoDir(app, app.projectId, "sandbox", videoId))).toBe(false);
    expect(encodeJobs(app, videoId)).toEqual([]);
  });
}

test("a last chunk whose completion failed (disk full) is retried: the retry completes the source", async () => {
  const { file, total, chunks } = original();
  const videoId = await newVideo("completion fails once");
  const send = (c: (typeof chunks)[number]) => postChunk(app, app.sandboxKey, `/videos/${videoId}/source`, form([{ bytes: c.bytes }]), c.range);
  expect((await send(chunks[0])).status).toBe(201);
  expect((await send(chunks[1])).status).toBe(201);

  // Fault injection: the completion (the one taking the partial source over) fails to write or
  // size it, as a full disk would.
  const storage = app.ctx.storage;
  const original_ = storage.openExclusive;
  const full = () => {
    throw Object.assign(new Error("ENOSPC: no space left on device"), { code: "ENOSPC" });
  };
  storage.openExclusive = (key, takeOver) => {
    const opened = original_(key, takeOver);
    return opened && takeOver ? Object.assign(Object.create(opened), { write: full, truncate: full, close: () => opened.close() }) : opened;
  };
  let failed: Response;
  try {
    failed = await send(chunks[2]);
  } finally {
    storage.openExclusive = original_;
  }
  expect(failed.status).toBe(500);
  expect(await failed.text()).not.toContain("ENOSPC");
  expect((await statusOf(app, app.sandboxKey, videoId)).ingest.status).toBe("uploading");
  expect(encodeJobs(app, videoId)).toEqual([]);
  expect(tempFiles(app)).toEqual([]);
  expect(existsSync(sourcePath(app, app.projectId, "sandbox", videoId))).toBe(false);

  const retried = await send(chunks[2]);
  expect(retried.status).toBe(201);
  const status = await statusOf(app, app.sandboxKey, videoId);
  expect(status.ingest.status).toBe("uploaded");
  expect(status.ingest.filesize).toBe(total);
  expect(await sha256File(sourcePath(app, app.projectId, "sandbox", videoId))).toBe(await sha256File(file));
  expect(encodeJobs(app, videoId)).toHaveLength(1);
  expect(chunkFiles(videoId)).toEqual([]);
});

test("two plain uploads racing for one video: one 201, one video-source-already-uploaded", async () => {
  const videoId = await newVideo("plain race");
  const a = noise(M);
  const b = noise(M);
  const results = await Promise.all([a, b].map((bytes) => postChunk(app, app.sandboxKey, `/videos/${videoId}/source`, form([{ bytes }]))));
  expect(results.map((r) => r.status).sort()).toEqual([201, 400]);
  const refused = results.find((r) => r.status === 400)!;
  expect(((await refused.json()) as { type: string }).type).toEndWith("/reference/video-source-already-uploaded");
  const winner = results[0].status === 201 ? a : b;
  const stored = new Uint8Array(await Bun.file(sourcePath(app, app.projectId, "sandbox", videoId)).arrayBuffer());
  expect(Buffer.compare(stored, winner)).toBe(0);
  expect(encodeJobs(app, videoId)).toHaveLength(1);
  expect(tempFiles(app)).toEqual([]);
});
