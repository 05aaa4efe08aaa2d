// POST /videos with `source`: a URL served by a local Bun.serve is downloaded and encoded, a
// videoId is copied; internal addresses are refused; oversize, non-video and failing downloads end
// in a failed video with a reason; uploads to imported or copied videos get §2.4's errors.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { existsSync, rmSync, statSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import ApiVideoClient from "@api.video/nodejs-client";
import { makeClip, makeNotAVideo } from "../fixtures/media";
import { startTestAppliance, tempDir, waitFor, type TestAppliance } from "../helpers";
import { UNLIMITED } from "./upload-helpers";
import { uploadSource, uploadVideo, videoStatus, waitEncoded, type Status } from "./vod-support";

setDefaultTimeout(180_000);

const CAP = 1024 * 1024;

let clip: Uint8Array<ArrayBuffer>;
let app: TestAppliance; // private addresses allowed: the clip server is on loopback
let strict: TestAppliance; // the default: internal addresses refused
let client: ApiVideoClient;
const hits = new Map<string, number>();
let server: ReturnType<typeof Bun.serve>;
let hold: { release: () => void; arrived: () => void } | null = null;
let remaining = 0; // 64 KiB chunks /big-stream.bin still sends
/** What each request for a resumable path asked for and got: its Range and If-Range, the status and the bytes sent. */
const ranged: { path: string; range: string | null; ifRange: string | null; status: number; sent: number }[] = [];
let rangedHold: { promise: Promise<void>; release: () => void } | null = null;
let rangeServer: Server; // node:http, which can drop a connection mid-body

/**
 * Answers as a server with range support does: a Range under a matching If-Range gets a 206 with
 * the rest of the clip, anything else the whole clip. The first answer for a path is cut off after
 * half the clip (the socket is destroyed, once `held` settles when given), so the job's next attempt
 * has something to continue. The clip's ETag is `etags[0]` until that cut, `etags[1]` after it.
 */
function rangedAnswer(req: IncomingMessage, res: ServerResponse, etags: [string, string], held?: Promise<void>): void {
  const path = req.url ?? "";
  const cut = !ranged.some((r) => r.path === path);
  const etag = cut ? etags[0] : etags[1];
  const [range, ifRange] = [req.headers.range ?? null, (req.headers["if-range"] as string | undefined) ?? null];
  const m = /^bytes=(\d+)-$/.exec(range ?? "");
  const first = m && ifRange === etag ? Number(m[1]) : 0;
  const rest = clip.subarray(first);
  const sent = cut ? rest.length >> 1 : rest.length;
  ranged.push({ path, range, ifRange, status: first ? 206 : 200, sent });
  res.writeHead(first ? 206 : 200, {
    etag, "accept-ranges": "bytes", "content-length": String(rest.length),
    ...(first ? { "content-range": `bytes ${first}-${clip.length - 1}/${clip.length}` } : {}),
  });
  if (!cut) return void res.end(rest);
  res.write(rest.subarray(0, sent), () => void (held ?? Promise.resolve()).then(() => res.destroy()));
}

const count = (path: string) => {
  const n = (hits.get(path) ?? 0) + 1;
  hits.set(path, n);
  return n;
};

beforeAll(async () => {
  clip = await Bun.file(await makeClip({ width: 320, height: 240, seconds: 2 })).bytes();
  const notVideo = await Bun.file(makeNotAVideo()).bytes();
  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const path = new URL(req.url).pathname;
      const n = count(path);
      switch (path) {
        case "/clip.mp4":
          return new Response(clip, { headers: { "content-type": "video/mp4" } });
        case "/redirect":
          return Response.redirect("/clip.mp4", 302);
        case "/loop":
          return Response.redirect("/loop", 302);
        case "/flaky.mp4": // fails twice, then serves the clip: the job's retries carry it through
          return n <= 2 ? new Response("busy", { status: 503 }) : new Response(clip);
        case "/missing.mp4":
          return new Response("no", { status: 404 });
        case "/text.mp4":
          return new Response(notVideo);
        case "/big.bin": // announced too big
          return new Response(randomBytes(CAP + 1));
        case "/big-stream.bin": // no Content-Length: the cap is enforced while streaming
          return new Response(new ReadableStream({
            pull(c) {
              c.enqueue(randomBytes(64 * 1024));
              if (--remaining <= 0) c.close();
            },
          }));
        case "/held.mp4": { // sends half the clip, then waits until released (a restart mid-download)
          if (!hold || n > 1) return new Response(clip);
          const h = hold;
          return new Response(new ReadableStream({
            async start(c) {
              c.enqueue(clip.slice(0, clip.length >> 1));
              h.arrived();
              await new Promise<void>((r) => (h.release = r));
              c.close();
            },
          }), { headers: { "content-length": String(clip.length) } });
        }
        default:
          return new Response("?", { status: 404 });
      }
    },
  });
  rangeServer = createServer((req, res) => {
    // Each is cut once the test has seen the first half kept (a cut sooner could lose bytes in flight).
    if (req.url === "/resumable.mp4") rangedAnswer(req, res, ['"v1"', '"v1"'], rangedHold?.promise); // continued where the client stopped
    else if (req.url === "/changing.mp4") rangedAnswer(req, res, ['"v1"', '"v2"'], rangedHold?.promise); // changes after the cut: no continuation
    else if (req.url === "/held-ranged.mp4") rangedAnswer(req, res, ['"v1"', '"v1"'], rangedHold?.promise); // cut by a restart
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => rangeServer.listen(0, "127.0.0.1", resolve));
  app = await startTestAppliance({
    env: { ...UNLIMITED, VIDHOST_IMPORT_ALLOW_PRIVATE: "true" },
    tweak: (c) => Object.assign(c, { importMaxBytes: CAP, importRetryDelayMs: 20 }),
  });
  strict = await startTestAppliance({ env: UNLIMITED, tweak: (c) => Object.assign(c, { importRetryDelayMs: 20 }) });
  client = new ApiVideoClient({ apiKey: app.sandboxKey, baseUri: app.urls.sandbox });
});
afterAll(async () => {
  await app?.close();
  await strict?.close();
  server?.stop(true);
  rangeServer?.close();
});

const url = (path: string) => `http://127.0.0.1:${server.port}${path}`;
const rangedUrl = (path: string) => `http://127.0.0.1:${(rangeServer.address() as AddressInfo).port}${path}`;
const fail = (promise: Promise<unknown>) => promise.then(() => { throw new Error("expected the call to fail"); }, (e) => e);

/** Waits until the video's encode failed (every quality failed, with a reason). */
async function waitFailed(a: TestAppliance, key: string, videoId: string): Promise<Status> {
  return waitFor(`${videoId} failed`, async () => {
    const s = await videoStatus(a, key, videoId, "sandbox");
    return s.encoding.qualities.length > 0 && s.encoding.qualities.every((q) => q.status === "failed") ? s : null;
  }, 60_000);
}

describe("URL import", () => {
  test("the official client imports a clip from a URL; it is ingested, encoded and playable", async () => {
    const created = await client.videos.create({ title: "imported", source: url("/clip.mp4") });
    expect(created.videoId).toMatch(/^vi[0-9A-Za-z]{22}$/);
    expect(created.source?.type).toBe("import");
    const raw = await app.api(app.sandboxKey, "POST", "/videos", { title: "raw", source: url("/clip.mp4") });
    expect(raw.status).toBe(202);
    expect(raw.headers.get("content-type")).toBe("application/json");

    const status = await waitEncoded(app, app.sandboxKey, created.videoId, "sandbox");
    expect(status.ingest.status).toBe("ingested");
    expect(status.encoding.playable).toBe(true);
    expect((await client.videos.getStatus(created.videoId)).ingest?.filesize).toBe(clip.length);
    const manifest = await fetch((await client.videos.get(created.videoId)).assets!.hls!);
    expect(manifest.status).toBe(200);
    expect(await manifest.text()).toContain("#EXTM3U");
  });

  test("redirects are followed; a redirect loop fails with a reason", async () => {
    const ok = await client.videos.create({ title: "redirected", source: url("/redirect") });
    await waitEncoded(app, app.sandboxKey, ok.videoId, "sandbox");
    const loop = await client.videos.create({ title: "loop", source: url("/loop") });
    const s = await waitFailed(app, app.sandboxKey, loop.videoId);
    expect(s.encoding.failureReason).toMatch(/redirected more than 5 times/);
  });

  test("a download that fails with 503 is retried by the job and then succeeds", async () => {
    const v = await client.videos.create({ title: "flaky", source: url("/flaky.mp4") });
    await waitEncoded(app, app.sandboxKey, v.videoId, "sandbox");
    expect(hits.get("/flaky.mp4")).toBe(3);
  });

  test("a 404, a file over the cap (announced or streamed) and a non-video fail cleanly with a reason", async () => {
    remaining = Math.ceil((CAP * 2) / (64 * 1024));
    const cases: [string, RegExp][] = [
      ["/missing.mp4", /answered HTTP 404/],
      ["/big.bin", /larger than the 1 MiB/],
      ["/big-stream.bin", /larger than the 1 MiB/],
      ["/text.mp4", /not a usable video/],
    ];
    for (const [path, reason] of cases) {
      const v = await client.videos.create({ title: path, source: url(path) });
      const s = await waitFailed(app, app.sandboxKey, v.videoId);
      expect(s.encoding.failureReason).toMatch(reason);
      expect(s.encoding.failureReason).not.toContain(app.dataDir);
      expect(s.ingest.status).toBe("ingesting");
    }
    expect(hits.get("/missing.mp4")).toBe(1); // a 404 is not retried
  });

  test("a restart mid-download re-runs the import from its durable job", async () => {
    const dataDir = tempDir();
    const env = { ...UNLIMITED, VIDHOST_IMPORT_ALLOW_PRIVATE: "true" };
    let first: TestAppliance | null = await startTestAppliance({ dataDir, env });
    let arrived!: () => void;
    const started = new Promise<void>((r) => (arrived = r));
    hold = { release: () => {}, arrived };
    try {
      const res = await first.api(first.sandboxKey, "POST", "/videos", { title: "held", source: url("/held.mp4") });
      expect(res.status).toBe(202);
      const { videoId } = (await res.json()) as { videoId: string };
      const key = first.sandboxKey; // printed once: a restart does not hand it out again
      await started;
      await first.stop();
      first = null;
      hold.release();
      const second = await startTestAppliance({ dataDir, env });
      try {
        await waitEncoded(second, key, videoId, "sandbox");
        expect(hits.get("/held.mp4")).toBe(2);
      } finally {
        await second.close();
      }
    } finally {
      hold?.release();
      hold = null;
      if (first) await first.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe("an interrupted download continues where it stopped", () => {
  const videoFile = (dataDir: string, projectId: string, videoId: string, name: string) => `${dataDir}/media/${projectId}/sandbox/videos/${videoId}/${name}`;
  const hold = () => {
    let release!: () => void;
    rangedHold = { promise: new Promise<void>((r) => (release = r)), release: () => release() };
    return rangedHold;
  };
  /** Imports `path` with the first answer cut once half the clip is kept; resolves with the video id once encoded. */
  async function importCut(path: string): Promise<string> {
    const held = hold();
    try {
      const v = await client.videos.create({ title: path, source: rangedUrl(path) });
      const partial = videoFile(app.dataDir, app.projectId, v.videoId, "import/partial");
      await waitFor("half the clip kept", () => (existsSync(partial) && statSync(partial).size >= clip.length >> 1) || null);
      held.release();
      await waitEncoded(app, app.sandboxKey, v.videoId, "sandbox");
      return v.videoId;
    } finally {
      held.release();
      rangedHold = null;
    }
  }
  const source = (videoId: string) => Bun.file(videoFile(app.dataDir, app.projectId, videoId, "source")).arrayBuffer().then((b) => new Uint8Array(b));

  test("the retry asks for the rest under the file's ETag; each byte is fetched once and the source is whole", async () => {
    const videoId = await importCut("/resumable.mp4");
    const requests = ranged.filter((r) => r.path === "/resumable.mp4");
    expect(requests).toHaveLength(2);
    expect(requests[0]).toMatchObject({ range: null, ifRange: null, status: 200, sent: clip.length >> 1 });
    expect(requests[1]).toMatchObject({ range: `bytes=${clip.length >> 1}-`, ifRange: '"v1"', status: 206, sent: clip.length - (clip.length >> 1) });
    expect(await source(videoId)).toEqual(clip);
    expect((await client.videos.getStatus(videoId)).ingest?.filesize).toBe(clip.length);
  });

  test("a file that changed meanwhile is fetched whole again, not stitched", async () => {
    const videoId = await importCut("/changing.mp4");
    const requests = ranged.filter((r) => r.path === "/changing.mp4");
    expect(requests).toHaveLength(2);
    expect(requests[1]).toMatchObject({ range: `bytes=${clip.length >> 1}-`, ifRange: '"v1"', status: 200, sent: clip.length });
    expect(await source(videoId)).toEqual(clip);
  });

  test("across a restart: the bytes kept in the video's folder are continued by the next process", async () => {
    const dataDir = tempDir();
    const env = { ...UNLIMITED, VIDHOST_IMPORT_ALLOW_PRIVATE: "true" };
    const held = hold();
    let first: TestAppliance | null = await startTestAppliance({ dataDir, env });
    try {
      const res = await first.api(first.sandboxKey, "POST", "/videos", { title: "held", source: rangedUrl("/held-ranged.mp4") });
      const { videoId } = (await res.json()) as { videoId: string };
      const [key, projectId] = [first.sandboxKey, first.projectId];
      const partial = videoFile(dataDir, projectId, videoId, "import/partial");
      await waitFor("half the clip kept", () => (existsSync(partial) && statSync(partial).size >= clip.length >> 1) || null);
      await first.stop();
      first = null;
      held.release();
      const second = await startTestAppliance({ dataDir, env });
      try {
        await waitEncoded(second, key, videoId, "sandbox");
        const requests = ranged.filter((r) => r.path === "/held-ranged.mp4");
        expect(requests).toHaveLength(2);
        expect(requests[1]).toMatchObject({ range: `bytes=${clip.length >> 1}-`, ifRange: '"v1"', status: 206 });
        expect(new Uint8Array(await Bun.file(videoFile(dataDir, projectId, videoId, "source")).arrayBuffer())).toEqual(clip);
        // The kept bytes and their validator went with the hand-over.
        expect(existsSync(videoFile(dataDir, projectId, videoId, "import"))).toBe(false);
      } finally {
        await second.close();
      }
    } finally {
      held.release();
      rangedHold = null;
      if (first) await first.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe("address guard (VIDHOST_IMPORT_ALLOW_PRIVATE off)", () => {
  test("literal internal addresses and non-http URLs are refused at create time, naming source", async () => {
    for (const source of [
      "http://127.0.0.1/clip.mp4", "http://10.1.2.3/clip.mp4", "http://[::1]:8080/a.mp4", "http://169.254.169.254/latest/meta-data/",
      "http://[::ffff:127.0.0.1]/a.mp4", "http://0x7f000001/a.mp4", "ftp://example.com/a.mp4", "file:///etc/passwd", "not a url",
      "http://user:pw@example.com/a.mp4", `http://example.com/${"a".repeat(3000)}.mp4`, "",
    ]) {
      const res = await strict.api(strict.sandboxKey, "POST", "/videos", { title: "refused", source });
      expect(res.status, source).toBe(400);
      const body = (await res.json()) as { type: string; name: string; detail: string };
      expect(body.type).toEndWith("/invalid-attribute");
      expect(body.name).toBe("source");
    }
    const list = await strict.api(strict.sandboxKey, "GET", "/videos");
    expect(((await list.json()) as { data: unknown[] }).data).toHaveLength(0);
  });

  test("a host name resolving to loopback fails the import with a reason, without connecting", async () => {
    const before = hits.get("/clip.mp4") ?? 0;
    const res = await strict.api(strict.sandboxKey, "POST", "/videos", { title: "rebind", source: `http://localhost:${server.port}/clip.mp4` });
    expect(res.status).toBe(202);
    const { videoId } = (await res.json()) as { videoId: string };
    const s = await waitFailed(strict, strict.sandboxKey, videoId);
    expect(s.encoding.failureReason).toMatch(/localhost resolves to a loopback address/);
    expect(hits.get("/clip.mp4") ?? 0).toBe(before);
  });
});

describe("copy by videoId", () => {
  test("copying an encoded video yields an encoded video; unknown, foreign and source-less ids are refused", async () => {
    const original = await client.videos.create({ title: "original", source: url("/clip.mp4") });
    await waitEncoded(app, app.sandboxKey, original.videoId, "sandbox");
    const copy = await client.videos.create({ title: "copy", source: original.videoId });
    expect(copy.source?.type).toBe("copy");
    const s = await waitEncoded(app, app.sandboxKey, copy.videoId, "sandbox");
    expect(s.ingest.status).toBe("ingested");
    expect((await client.videos.getStatus(copy.videoId)).ingest?.filesize).toBe(clip.length);

    // A video whose upload is still encoding can be copied: its source file is complete.
    const clipFile = `${tempDir()}/clip.mp4`;
    await Bun.write(clipFile, clip);
    const uploaded = await uploadVideo(app, app.sandboxKey, "sandbox", clipFile, "encoding");
    const early = await client.videos.create({ title: "early copy", source: uploaded });
    await waitEncoded(app, app.sandboxKey, early.videoId, "sandbox");
    await waitEncoded(app, app.sandboxKey, uploaded, "sandbox");

    // A video still importing cannot be copied yet.
    const importing = await app.api(app.sandboxKey, "POST", "/videos", { title: "importing", source: url("/loop") });
    const { videoId: importingId } = (await importing.json()) as { videoId: string };
    const empty = await client.videos.create({ title: "no source yet" });
    const other = await app.newProject("other");
    for (const source of ["vi0000000000000000000000", empty.videoId, importingId]) {
      const e = await fail(client.videos.create({ title: "bad copy", source }));
      expect(e.code, source).toBe(400);
      expect(e.problemDetails.name).toBe("source");
    }
    const foreign = await app.api(other.sandboxKey, "POST", "/videos", { title: "foreign", source: original.videoId });
    expect(foreign.status).toBe(400);
    // The production environment of the same project does not see sandbox videos either.
    const otherEnv = await app.api(other.productionKey, "POST", "/videos", { title: "foreign", source: original.videoId }, "production");
    expect(otherEnv.status).toBe(400);
  });
});

describe("uploads to imported or copied videos", () => {
  test("get video-source-already-downloaded / -copied", async () => {
    const imported = await client.videos.create({ title: "imported", source: url("/clip.mp4") });
    await waitEncoded(app, app.sandboxKey, imported.videoId, "sandbox");
    const copied = await client.videos.create({ title: "copied", source: imported.videoId });
    const clipFile = `${tempDir()}/clip.mp4`;
    await Bun.write(clipFile, clip);
    for (const [videoId, slug] of [[imported.videoId, "downloaded"], [copied.videoId, "copied"]]) {
      const e = await fail(uploadSource(app, app.sandboxKey, "sandbox", videoId, clipFile));
      expect(String(e)).toContain(`video-source-already-${slug}`);
      const viaClient = await fail(client.videos.upload(videoId, clipFile));
      expect(viaClient.code).toBe(400);
      expect(viaClient.problemDetails.type).toEndWith(`/video-source-already-${slug}`);
    }
    // While the download is still running, too.
    const pending = await app.api(app.sandboxKey, "POST", "/videos", { title: "pending", source: url("/loop") });
    const { videoId } = (await pending.json()) as { videoId: string };
    const e = await fail(uploadSource(app, app.sandboxKey, "sandbox", videoId, clipFile));
    expect(String(e)).toContain("video-source-already-downloaded");
  });
});
