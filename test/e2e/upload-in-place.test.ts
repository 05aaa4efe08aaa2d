// Progressive uploads written in place: a chunk whose place in the file is known goes straight into
// the video's partial source, so completing the upload moves that file (same inode) instead of
// copying it; other chunks (after a gap, or arriving while another request holds the partial
// source) are stored on their own and copied in at completion. Also: a request still writing when
// the upload completes is stopped, and an upload survives a restart between chunks or a crash
// while completing.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { Database } from "bun:sqlite";
import { existsSync, readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { mediaTempDir } from "../fixtures/media";
import { startTestAppliance, waitFor, type TestAppliance } from "../helpers";
import {
  encodeJobs, fileSize, form, MiB, noise, partialPath, postChunk, sha256File, sourcePath, statusOf, tempFiles, UNLIMITED, videoDir,
} from "./upload-helpers";

setDefaultTimeout(120_000);

let app: TestAppliance;

beforeAll(async () => {
  app = await startTestAppliance({ env: UNLIMITED });
  await app.ctx.queue.stop();
});
afterAll(() => app.close());

const M = 5 * MiB;

/** Three chunks: two of 5 MiB and a short last one, as byte ranges and as parts. */
function original() {
  const bytes = noise(2 * M + 12_345);
  const total = bytes.length;
  const chunks = [
    { range: `bytes 0-${M - 1}/${total}`, part: "part 1/3", bytes: bytes.subarray(0, M) },
    { range: `bytes ${M}-${2 * M - 1}/${total}`, part: "part 2/3", bytes: bytes.subarray(M, 2 * M) },
    { range: `bytes ${2 * M}-${total - 1}/${total}`, part: "part 3/3", bytes: bytes.subarray(2 * M) },
  ];
  return { bytes, total, chunks };
}
type Chunk = ReturnType<typeof original>["chunks"][number];

const sha256 = (bytes: Uint8Array) => new Bun.CryptoHasher("sha256").update(bytes).digest("hex");

/** Everything one video's upload is looked at through, against the appliance `on`. */
function upload(on: () => TestAppliance, key: () => string, projectId: () => string, videoId: string, mode: "bytes" | "part") {
  const header = (c: Chunk) => (mode === "bytes" ? c.range : c.part);
  return {
    header,
    send: (c: Chunk) => postChunk(on(), key(), `/videos/${videoId}/source`, form([{ bytes: c.bytes }]), header(c)),
    chunkFiles: () => {
      const dir = join(videoDir(on(), projectId(), "sandbox", videoId), "chunks");
      return existsSync(dir) ? readdirSync(dir).sort() : [];
    },
    partialSize: () => fileSize(partialPath(on(), projectId(), "sandbox", videoId)),
    partialInode: () => statSync(partialPath(on(), projectId(), "sandbox", videoId)).ino,
    source: () => sourcePath(on(), projectId(), "sandbox", videoId),
  };
}

async function newVideo(title: string, on = app, key = app.sandboxKey): Promise<string> {
  const res = await on.api(key, "POST", "/videos", { title });
  return ((await res.json()) as { videoId: string }).videoId;
}

/**
 * A chunk sent as a stream that stops half-way until `release()` (then sends `rest`, by default the
 * chunk's own second half), so a test can act while the server holds it.
 */
function heldChunk(videoId: string, contentRange: string, bytes: Uint8Array, rest = bytes.subarray(bytes.length >> 1)) {
  const boundary = "heldboundary";
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="held.bin"\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const pieces: (Uint8Array | Promise<void>)[] = [head, bytes.subarray(0, bytes.length >> 1), released, rest, tail];
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      let next = pieces.shift();
      if (next instanceof Promise) {
        await next;
        next = pieces.shift();
      }
      if (next) controller.enqueue(next as Uint8Array);
      else controller.close();
    },
  });
  const response = postChunk(app, app.sandboxKey, `/videos/${videoId}/source`, body, contentRange, {
    "content-type": `multipart/form-data; boundary=${boundary}`,
  }).then((r) => r.status, () => "failed" as const);
  return { response, release };
}

describe("chunks whose place is known go straight into the partial source; completion moves it", () => {
  for (const mode of ["bytes", "part"] as const) {
    test(`${mode} ranges in order`, async () => {
      const { bytes, total, chunks } = original();
      const videoId = await newVideo(`in order ${mode}`);
      const u = upload(() => app, () => app.sandboxKey, () => app.projectId, videoId, mode);
      expect((await u.send(chunks[0])).status).toBe(201);
      expect(u.chunkFiles()).toEqual(["partial"]);
      expect(u.partialSize()).toBe(M);
      expect((await u.send(chunks[1])).status).toBe(201);
      expect(u.chunkFiles()).toEqual(["partial"]);
      expect(u.partialSize()).toBe(2 * M);
      const inode = u.partialInode();

      expect((await u.send(chunks[2])).status).toBe(201);
      // The source is the partial file itself, moved: no copy was made.
      expect(statSync(u.source()).ino).toBe(inode);
      expect(await sha256File(u.source())).toBe(sha256(bytes));
      expect((await statusOf(app, app.sandboxKey, videoId)).ingest).toMatchObject({ status: "uploaded", filesize: total });
      expect(existsSync(join(videoDir(app, app.projectId, "sandbox", videoId), "chunks"))).toBe(false);
      expect(tempFiles(app)).toEqual([]);
      expect(encodeJobs(app, videoId)).toHaveLength(1);
    });
  }

  test("byte ranges out of order, the last first: each goes in at its place", async () => {
    const { bytes, total, chunks } = original();
    const videoId = await newVideo("bytes out of order");
    const u = upload(() => app, () => app.sandboxKey, () => app.projectId, videoId, "bytes");
    expect((await u.send(chunks[2])).status).toBe(201);
    expect(u.chunkFiles()).toEqual(["partial"]);
    expect(u.partialSize()).toBe(total);
    expect((await u.send(chunks[0])).status).toBe(201);
    const inode = u.partialInode();
    expect((await u.send(chunks[1])).status).toBe(201);
    expect(statSync(u.source()).ino).toBe(inode);
    expect(await sha256File(u.source())).toBe(sha256(bytes));
  });
});

test("a part after a gap is stored on its own and copied in at completion", async () => {
  const { bytes, total, chunks } = original();
  const videoId = await newVideo("part after a gap");
  const u = upload(() => app, () => app.sandboxKey, () => app.projectId, videoId, "part");
  // Part 3's place depends on the sizes of parts 1 and 2, unknown yet.
  expect((await u.send(chunks[2])).status).toBe(201);
  expect(u.chunkFiles()).toEqual(["part-00003"]);
  expect((await u.send(chunks[0])).status).toBe(201);
  expect(u.chunkFiles()).toEqual(["part-00003", "partial"]);
  expect((await u.send(chunks[1])).status).toBe(201);
  expect(await sha256File(u.source())).toBe(sha256(bytes));
  expect((await statusOf(app, app.sandboxKey, videoId)).ingest).toMatchObject({ status: "uploaded", filesize: total });
  expect(u.chunkFiles()).toEqual([]);
  expect(tempFiles(app)).toEqual([]);
  expect(encodeJobs(app, videoId)).toHaveLength(1);
});

test("a chunk arriving while another request holds the partial source is stored on its own", async () => {
  const { bytes, chunks } = original();
  const videoId = await newVideo("held partial");
  const u = upload(() => app, () => app.sandboxKey, () => app.projectId, videoId, "bytes");
  const held = heldChunk(videoId, chunks[1].range, chunks[1].bytes);
  await waitFor("the held chunk to be written in place", () => (u.partialSize() ?? 0) > M);
  expect((await u.send(chunks[2])).status).toBe(201);
  expect(u.chunkFiles()).toEqual([`bytes-${String(2 * M).padStart(11, "0")}-${String(bytes.length - 1).padStart(11, "0")}`, "partial"]);
  held.release();
  expect(await held.response).toBe(201);
  expect((await u.send(chunks[0])).status).toBe(201);
  expect(await sha256File(u.source())).toBe(sha256(bytes));
  expect(u.chunkFiles()).toEqual([]);
  expect(tempFiles(app)).toEqual([]);
});

test("a stale request still writing in place when a retry completes the upload is stopped: its late bytes never reach the source", async () => {
  const { bytes, chunks } = original();
  const videoId = await newVideo("stale writer");
  const u = upload(() => app, () => app.sandboxKey, () => app.projectId, videoId, "part");
  expect((await u.send(chunks[0])).status).toBe(201);
  // The first try of part 2 stalls half-way, holding the partial source; what it sends later is junk.
  const stale = heldChunk(videoId, chunks[1].part, chunks[1].bytes, noise(chunks[1].bytes.length - (chunks[1].bytes.length >> 1)));
  await waitFor("the stale chunk to be written in place", () => (u.partialSize() ?? 0) > M);
  // The client gives up on it and retries; the retry and the last part are stored on their own.
  expect((await u.send(chunks[1])).status).toBe(201);
  expect((await u.send(chunks[2])).status).toBe(201);
  expect((await statusOf(app, app.sandboxKey, videoId)).ingest.status).toBe("uploaded");
  stale.release();
  // Its late bytes are refused as arriving for a video that has its source.
  expect(await stale.response).toBe(400);
  expect(await sha256File(u.source())).toBe(sha256(bytes));
  expect(u.chunkFiles()).toEqual([]);
  expect(tempFiles(app)).toEqual([]);
  expect(encodeJobs(app, videoId)).toHaveLength(1);
});

/**
 * One upload across a restart: `before` runs on the first appliance, `between` while none runs
 * (the data dir is the test's to alter), `after` on the second; both stop and the data dir goes.
 */
async function acrossRestart(title: string, mode: "bytes" | "part", steps: {
  before(u: ReturnType<typeof upload>, first: TestAppliance): Promise<void>;
  between?(dataDir: string, videoId: string): void;
  after(u: ReturnType<typeof upload>, status: () => Promise<Awaited<ReturnType<typeof statusOf>>>): Promise<void>;
}): Promise<void> {
  const dataDir = mediaTempDir();
  let running: TestAppliance | undefined;
  try {
    running = await startTestAppliance({ dataDir, env: UNLIMITED });
    const { sandboxKey, projectId } = running;
    const videoId = await newVideo(title, running, sandboxKey);
    // Paths are the same on both appliances (one data dir): they resolve against the first when none runs.
    const first = running;
    const u = upload(() => running ?? first, () => sandboxKey, () => projectId, videoId, mode);
    await steps.before(u, running);
    await running.close();
    running = undefined;
    steps.between?.(dataDir, videoId);
    running = await startTestAppliance({ dataDir, env: UNLIMITED });
    await steps.after(u, () => statusOf(running!, sandboxKey, videoId));
  } finally {
    await running?.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

test("an upload continues after a restart between chunks", async () => {
  const { bytes, total, chunks } = original();
  await acrossRestart("restart", "part", {
    async before(u) {
      // Part 1 in place, part 3 on its own (after a gap), then the restart.
      expect((await u.send(chunks[0])).status).toBe(201);
      expect((await u.send(chunks[2])).status).toBe(201);
      expect(u.chunkFiles()).toEqual(["part-00003", "partial"]);
    },
    async after(u, status) {
      expect(u.partialSize()).toBe(M);
      expect((await status()).ingest).toMatchObject({ status: "uploading", receivedParts: { parts: [1, 3], total: 3 } });
      expect((await u.send(chunks[1])).status).toBe(201);
      expect(await sha256File(u.source())).toBe(sha256(bytes));
      expect((await status()).ingest).toMatchObject({ status: "uploaded", filesize: total });
      expect(u.chunkFiles()).toEqual([]);
    },
  });
});

test("a crash after the finished source was moved but before it was recorded: the retried last chunk takes it back", async () => {
  const { bytes, total, chunks } = original();
  await acrossRestart("moved", "bytes", {
    async before(u, first) {
      await first.ctx.queue.stop();
      for (const chunk of chunks) expect((await u.send(chunk)).status).toBe(201);
    },
    between(dataDir, videoId) {
      // What the crash leaves: the rename happened, the transaction recording it (and its encode job) did not.
      const sqlite = new Database(join(dataDir, "vidhost.db"));
      sqlite.query("UPDATE videos SET ingest_status = 'uploading', filesize = NULL, source_type = NULL WHERE id = ?").run(videoId);
      sqlite.query("DELETE FROM jobs WHERE json_extract(payload, '$.videoId') = ?").run(videoId);
      sqlite.close();
    },
    async after(u, status) {
      expect([existsSync(u.source()), u.partialSize()]).toEqual([true, null]);
      expect((await status()).ingest?.status).toBe("uploading");
      expect((await u.send(chunks[2])).status).toBe(201);
      expect(await sha256File(u.source())).toBe(sha256(bytes));
      expect((await status()).ingest).toMatchObject({ status: "uploaded", filesize: total });
      expect(u.chunkFiles()).toEqual([]);
    },
  });
});
