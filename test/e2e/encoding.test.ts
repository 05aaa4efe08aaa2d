// Encoding end to end: a 720p clip made by ffmpeg, uploaded with the official Node client, comes
// out as HLS 240p–720p plus an MP4, with signed webhooks, status, metadata and a thumbnail.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import ApiVideoClient from "@api.video/nodejs-client";
import { eq } from "drizzle-orm";
import { Database } from "bun:sqlite";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { jobs } from "../../src/db/schema";
import { hmacSha256Hex } from "../../src/security";
import { ENCODE_JOB, MP4_JOB, videoKey } from "../../src/videos/service";
import { ffprobeJson, makeClip, makeNotAVideo, mediaTempDir } from "../fixtures/media";
import { startTestAppliance, tempDir, waitFor, type TestAppliance } from "../helpers";
import { NO_RATE_LIMITS, isJpeg, makeRemuxableClip, parsePlaylist, realTimeFfmpeg, uploadVideo, videoStatus, waitEncoded, webhookReceiver, type Status } from "./vod-support";

setDefaultTimeout(120_000);

const LADDER_720 = ["hls 240p", "hls 360p", "hls 480p", "hls 720p", "mp4 720p"];
const HEIGHTS: Record<string, number> = { "240p": 240, "360p": 360, "480p": 480, "720p": 720 };

let app: TestAppliance;
let rx: ReturnType<typeof webhookReceiver>;
let project: { projectId: string; sandboxKey: string; productionKey: string };
let hook: { webhookId: string; signatureSecret: string };
let clip720: string;

beforeAll(async () => {
  [app, clip720] = await Promise.all([startTestAppliance({ env: NO_RATE_LIMITS }), makeClip({ width: 1280, height: 720, seconds: 2.5 })]);
  rx = webhookReceiver();
  project = await app.newProject("Encoding");
  const res = await app.api(project.productionKey, "POST", "/webhooks", { events: ["video.encoding.quality.completed"], url: rx.url("/encoding") }, "production");
  hook = (await res.json()) as typeof hook;
});
afterAll(async () => {
  await app?.close();
  rx?.stop();
});

const qualityKeys = (s: Status) => s.encoding.qualities.map((q) => `${q.type} ${q.quality}`).sort();

describe("a 720p upload with the Node client", () => {
  let videoId: string;
  let status: Status;
  let vod: string;

  test("the manifest answers 202 with an empty body before there is anything to play", async () => {
    const client = new ApiVideoClient({ apiKey: project.productionKey, baseUri: app.urls.production });
    const video = await client.videos.create({ title: "Seven twenty" });
    videoId = video.videoId;
    vod = `${app.urls.production}/vod/${videoId}`;
    expect(video.assets?.hls).toBe(`${vod}/hls/manifest.m3u8`);
    const early = await fetch(`${vod}/hls/manifest.m3u8`);
    expect(early.status).toBe(202);
    expect(await early.text()).toBe("");

    const uploaded = await client.videos.upload(videoId, clip720);
    expect(uploaded.videoId).toBe(videoId);
    status = await waitEncoded(app, project.productionKey, videoId, "production");
  });

  test("exactly five signed video.encoding.quality.completed webhooks arrive", async () => {
    const mine = () => rx.received.filter((r) => r.path === "/encoding" && JSON.parse(r.body).videoId === videoId);
    await waitFor("five webhooks", () => mine().length >= 5);
    // Give a sixth (a duplicate) every chance to show up: wait until the outbox is drained.
    await waitFor("deliveries settled", () => !app.ctx.db.select().from(jobs).all().some((j) => j.kind === "webhook.deliver" && (j.status === "queued" || j.status === "running")));
    const got = mine();
    expect(got).toHaveLength(5);
    for (const r of got) {
      expect(r.headers.get("x-api-video-signature")).toBe(hmacSha256Hex(hook.signatureSecret, r.body));
      expect(r.headers.get("x-api-video-webhookid")).toBe(hook.webhookId);
      const body = JSON.parse(r.body);
      expect(body.type).toBe("video.encoding.quality.completed");
      expect(["hls", "mp4"]).toContain(body.encoding);
    }
    expect(got.map((r) => JSON.parse(r.body)).map((b) => `${b.encoding} ${b.quality}`).sort()).toEqual(LADDER_720);
  });

  test("status: every quality encoded, playable, the source's metadata", async () => {
    expect(qualityKeys(status)).toEqual(LADDER_720);
    expect(status.encoding.playable).toBe(true);
    expect(status.ingest.status).toBe("uploaded");
    const m = status.encoding.metadata;
    expect(m).toMatchObject({ width: 1280, height: 720, framerate: 25, samplerate: 48000, videoCodec: "h264", audioCodec: "aac", aspectRatio: "16:9" });
    expect(m.duration).toBeGreaterThanOrEqual(2);
    expect(m.duration).toBeLessThanOrEqual(3);
    expect(status.encoding.failureReason ?? null).toBeNull();
    // The Node client reads the same document.
    const client = new ApiVideoClient({ apiKey: project.productionKey, baseUri: app.urls.production });
    const viaClient = await client.videos.getStatus(videoId);
    expect(viaClient.encoding?.playable).toBe(true);
    expect(viaClient.encoding?.metadata?.aspectRatio).toBe("16:9");
  });

  test("the master playlist lists exactly the encoded renditions", async () => {
    const res = await fetch(`${vod}/hls/manifest.m3u8`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/vnd.apple.mpegurl");
    const text = await res.text();
    const uris = text.split("\n").filter((l) => l && !l.startsWith("#"));
    expect(uris).toEqual(["240p/index.m3u8", "360p/index.m3u8", "480p/index.m3u8", "720p/index.m3u8"]);
    const resolutions = [...text.matchAll(/RESOLUTION=(\d+)x(\d+)/g)].map((m) => Number(m[2]));
    expect(resolutions).toEqual([240, 360, 480, 720]);
  });

  test("each rendition's segments have its height and together last as long as the source", async () => {
    const dir = mediaTempDir();
    for (const [quality, height] of Object.entries(HEIGHTS)) {
      const playlist = await (await fetch(`${vod}/hls/${quality}/index.m3u8`)).text();
      const { segments, ended } = parsePlaylist(playlist);
      expect(ended).toBe(true);
      expect(segments.length).toBeGreaterThan(0);
      let total = 0;
      for (const [i, seg] of segments.entries()) {
        const res = await fetch(`${vod}/hls/${quality}/${seg.uri}`);
        expect(res.status).toBe(200);
        const file = join(dir, `${quality}-${i}.ts`);
        writeFileSync(file, await res.bytes());
        const probe = await ffprobeJson(file);
        const video = probe.streams.find((s) => s.codec_type === "video")!;
        expect(video.codec_name).toBe("h264");
        expect(video.height).toBe(height);
        expect(probe.streams.some((s) => s.codec_type === "audio" && s.codec_name === "aac")).toBe(true);
        total += Number(probe.format.duration);
      }
      expect(Math.abs(total - 2.5)).toBeLessThan(0.3);
      // And what a player reads: the playlist's own durations.
      expect(Math.abs(segments.reduce((s, x) => s + x.duration, 0) - 2.5)).toBeLessThan(0.3);
    }
  });

  test("the MP4 is 720p H.264/AAC of the source's length", async () => {
    const res = await fetch(`${vod}/mp4/source.mp4`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("video/mp4");
    const file = join(mediaTempDir(), "out.mp4");
    writeFileSync(file, await res.bytes());
    const probe = await ffprobeJson(file);
    const video = probe.streams.find((s) => s.codec_type === "video")!;
    expect([video.codec_name, video.width, video.height]).toEqual(["h264", 1280, 720]);
    expect(probe.streams.find((s) => s.codec_type === "audio")?.codec_name).toBe("aac");
    expect(Math.abs(Number(probe.format.duration) - 2.5)).toBeLessThan(0.3);
  });

  test("the thumbnail is a JPEG", async () => {
    const res = await fetch(`${vod}/thumbnail.jpg`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/jpeg");
    expect(isJpeg(await res.bytes())).toBe(true);
  });
});

test("a file that is not a video fails every quality with a reason, once", async () => {
  const videoId = await uploadVideo(app, project.productionKey, "production", makeNotAVideo(), "noise");
  const status = await waitFor("encoding failed", async () => {
    const s = await videoStatus(app, project.productionKey, videoId, "production");
    return s.encoding.qualities.length > 0 && s.encoding.qualities.every((q) => q.status === "failed") ? s : null;
  });
  expect(status.encoding.playable).toBe(false);
  expect(status.encoding.failureReason).toMatch(/could not read|not a video|Invalid data/i);
  expect(status.encoding.failureReason).not.toContain(app.dataDir);
  const job = app.ctx.db.select().from(jobs).where(eq(jobs.kind, ENCODE_JOB)).all().find((j) => JSON.parse(j.payload).videoId === videoId)!;
  expect(job.status).toBe("failed");
  expect(job.attempts).toBe(1);
  // Nothing to play: the manifest keeps answering 202, and the MP4 and thumbnail do not exist.
  expect((await fetch(`${app.urls.production}/vod/${videoId}/hls/manifest.m3u8`)).status).toBe(202);
  expect((await fetch(`${app.urls.production}/vod/${videoId}/mp4/source.mp4`)).status).toBe(404);
});

test("mp4Support turned on after the encode makes the MP4 from the clipped ladder; off hides it, on again serves it at once", async () => {
  const key = project.productionKey;
  const clip = await makeClip({ width: 320, height: 180, seconds: 2 });
  // A clip: the MP4 must be the 1 s the ladder delivers, not the 2 s source.
  const videoId = await uploadVideo(app, key, "production", clip, "late mp4", { mp4Support: false, clip: { startTimecode: "0.5", endTimecode: "1.5" } });
  const vod = `${app.urls.production}/vod/${videoId}`;
  expect(qualityKeys(await waitEncoded(app, key, videoId, "production"))).toEqual(["hls 240p"]);
  expect((await fetch(`${vod}/mp4/source.mp4`)).status).toBe(404);

  const on = await app.api(key, "PATCH", `/videos/${videoId}`, { mp4Support: true }, "production");
  expect(((await on.json()) as { assets: { mp4?: string } }).assets.mp4).toBe(`${vod}/mp4/source.mp4`);
  const right = await videoStatus(app, key, videoId, "production");
  expect(qualityKeys(right)).toEqual(["hls 240p", "mp4 240p"]);
  expect(["waiting", "encoding", "encoded"]).toContain(right.encoding.qualities.find((q) => q.type === "mp4")!.status);
  await waitEncoded(app, key, videoId, "production");
  const mp4 = await fetch(`${vod}/mp4/source.mp4`);
  expect(mp4.status).toBe(200);
  const file = join(mediaTempDir(), "late.mp4");
  writeFileSync(file, await mp4.bytes());
  const probe = await ffprobeJson(file);
  expect(probe.streams.find((s) => s.codec_type === "video")?.codec_name).toBe("h264");
  expect(Math.abs(Number(probe.format.duration) - 1)).toBeLessThan(0.25);
  const mine = () => rx.events("/encoding").filter((e) => e.videoId === videoId).map((e) => `${e.encoding} ${e.quality}`).sort();
  await waitFor("the mp4 webhook", () => mine().length >= 2);

  // Off: not offered (assets, status, delivery); the file is kept, so on again serves it with no new job or webhook.
  const off = await app.api(key, "PATCH", `/videos/${videoId}`, { mp4Support: false }, "production");
  expect(((await off.json()) as { assets: { mp4?: string } }).assets.mp4).toBeUndefined();
  expect(qualityKeys(await videoStatus(app, key, videoId, "production"))).toEqual(["hls 240p"]);
  expect((await fetch(`${vod}/mp4/source.mp4`)).status).toBe(404);
  expect((await app.api(key, "PATCH", `/videos/${videoId}`, { mp4Support: true }, "production")).status).toBe(200);
  expect((await fetch(`${vod}/mp4/source.mp4`)).status).toBe(200);
  expect(app.ctx.db.select().from(jobs).where(eq(jobs.kind, MP4_JOB)).all().filter((j) => JSON.parse(j.payload).videoId === videoId)).toHaveLength(1);
  await waitFor("deliveries settled", () => !app.ctx.db.select().from(jobs).all().some((j) => j.kind === "webhook.deliver" && (j.status === "queued" || j.status === "running")));
  expect(mine()).toEqual(["hls 240p", "mp4 240p"]);
});

test("mp4Support turned on mid-encode: the MP4 job waits for the ladder, then copies it", async () => {
  // Real-time ffmpeg: the encode lasts at least the clip's 2 s, so the PATCH lands while it runs.
  const c = await startTestAppliance({ env: { ...NO_RATE_LIMITS, VIDHOST_FFMPEG: realTimeFfmpeg() } });
  try {
    const clip = await makeClip({ width: 320, height: 180, seconds: 2 });
    const videoId = await uploadVideo(c, c.sandboxKey, "sandbox", clip, "mid-encode", { mp4Support: false });
    await waitFor("encoding", async () => (await videoStatus(c, c.sandboxKey, videoId, "sandbox")).encoding.qualities.some((q) => q.status === "encoding"));
    expect((await c.api(c.sandboxKey, "PATCH", `/videos/${videoId}`, { mp4Support: true })).status).toBe(200);
    const during = await videoStatus(c, c.sandboxKey, videoId, "sandbox");
    expect(during.encoding.qualities.map((q) => `${q.type} ${q.quality} ${q.status}`)).toEqual(["hls 240p encoding", "mp4 240p waiting"]);
    await waitEncoded(c, c.sandboxKey, videoId, "sandbox");
    const probe = await ffprobeJson(`${c.urls.sandbox}/vod/${videoId}/mp4/source.mp4`);
    expect(Math.abs(Number(probe.format.duration) - 2)).toBeLessThan(0.3);
    // Waiting for the encode spent none of the job's attempts.
    const job = c.ctx.db.select().from(jobs).where(eq(jobs.kind, MP4_JOB)).get()!;
    expect([job.status, job.attempts]).toEqual(["done", 1]);
  } finally {
    await c.close();
  }
});

test("a restart during an encode finishes the video, with each webhook once", async () => {
  const dataDir = tempDir();
  const slow = realTimeFfmpeg(); // encodes take the clip's own length: deterministic "mid-encode"
  const clip = await makeRemuxableClip(3); // the top rung is a remux: A finishes it before the stop
  const a = await startTestAppliance({ dataDir, env: { ...NO_RATE_LIMITS, VIDHOST_FFMPEG: slow } });
  const rxr = webhookReceiver();
  let b: TestAppliance | undefined;
  try {
    const keys = await a.newProject("Restart");
    const hookR = (await (await a.api(keys.productionKey, "POST", "/webhooks", { events: ["video.encoding.quality.completed"], url: rxr.url("/r") }, "production")).json()) as { signatureSecret: string };
    const videoId = await uploadVideo(a, keys.productionKey, "production", clip, "restart");
    const manifestA = `${a.urls.production}/vod/${videoId}/hls/manifest.m3u8`;
    // Even the remux of the top rung takes the clip's 3 s here: nothing is playable yet.
    const pendingRes = await fetch(manifestA);
    expect(pendingRes.status).toBe(202);
    expect(await pendingRes.text()).toBe("");
    // Part-way: the top rung (a remux) is done and the rest of the ladder is encoding.
    const mid = await waitFor("720p encoded, the ladder encoding", async () => {
      const s = await videoStatus(a, keys.productionKey, videoId, "production");
      const hls720 = s.encoding.qualities.find((q) => q.type === "hls" && q.quality === "720p");
      return hls720?.status === "encoded" && s.encoding.qualities.some((q) => q.status === "encoding") ? s : null;
    }, 60_000);
    expect(mid.encoding.playable).toBe(true);
    // The master lists what is encoded, and only that.
    const master = await (await fetch(manifestA)).text();
    expect(master.split("\n").filter((l) => l && !l.startsWith("#"))).toEqual(["720p/index.m3u8"]);
    await a.close(); // graceful: ffmpeg is killed and the job handed back

    b = await startTestAppliance({ dataDir, env: NO_RATE_LIMITS });
    const status = await waitEncoded(b, keys.productionKey, videoId, "production");
    expect(qualityKeys(status)).toEqual(LADDER_720);
    const job = await waitFor("the encode job settled", () => {
      const j = b!.ctx.db.select().from(jobs).where(eq(jobs.kind, ENCODE_JOB)).get()!;
      return j.status !== "running" && j.status !== "queued" ? j : null;
    });
    expect(job.status).toBe("done");
    expect(job.attempts).toBe(1); // the handed-back run was not counted
    await waitFor("five webhooks", () => rxr.bodies("/r").length >= 5);
    await waitFor("deliveries settled", () => !b!.ctx.db.select().from(jobs).all().some((j) => j.kind === "webhook.deliver" && (j.status === "queued" || j.status === "running")));
    // Across both processes: each rendition announced exactly once, every one signed.
    const got = rxr.received.filter((r) => r.path === "/r");
    expect(got.map((r) => JSON.parse(r.body)).map((x) => `${x.encoding} ${x.quality}`).sort()).toEqual(LADDER_720);
    for (const r of got) expect(r.headers.get("x-api-video-signature")).toBe(hmacSha256Hex(hookR.signatureSecret, r.body));
    // What B serves is whole: every segment each playlist names is there and decodes at its height.
    const vod = `${b.urls.production}/vod/${videoId}`;
    const cuts: Record<string, number[]> = {};
    for (const [quality, height] of Object.entries(HEIGHTS)) {
      const playlist = `${vod}/hls/${quality}/index.m3u8`;
      const { segments } = parsePlaylist(await (await fetch(playlist)).text());
      cuts[quality] = segments.map((x) => x.duration);
      for (const s of segments) expect((await fetch(`${vod}/hls/${quality}/${s.uri}`)).status).toBe(200);
      const probe = await ffprobeJson(playlist);
      expect(probe.streams.find((x) => x.codec_type === "video")?.height).toBe(height);
      expect(Math.abs(Number(probe.format.duration) - 3)).toBeLessThan(0.3);
    }
    // The encoded rungs cut where the remuxed 720p does, so players can switch between them.
    for (const quality of ["240p", "360p", "480p"]) {
      expect(cuts[quality].length).toBe(cuts["720p"].length);
      cuts[quality].forEach((d, i) => expect(Math.abs(d - cuts["720p"][i])).toBeLessThan(0.05));
    }
  } finally {
    await b?.close();
    rxr.stop();
  }
});

test("VIDHOST_ENCODING_CONCURRENCY=1 encodes one video at a time", async () => {
  // Real-time ffmpeg: each encode lasts at least the clip's length, so an overlap would be seen.
  const slow = realTimeFfmpeg();
  const c = await startTestAppliance({ env: { ...NO_RATE_LIMITS, VIDHOST_FFMPEG: slow, VIDHOST_ENCODING_CONCURRENCY: "1" } });
  try {
    const clip = await makeClip({ width: 320, height: 180, seconds: 1 });
    const ids = await Promise.all([1, 2].map((n) => uploadVideo(c, c.sandboxKey, "sandbox", clip, `v${n}`)));
    let overlaps = 0;
    const busy = new Set<string>();
    await waitFor("both encoded", async () => {
      const all = await Promise.all(ids.map((id) => videoStatus(c, c.sandboxKey, id, "sandbox")));
      const encoding = all.filter((s) => s.encoding.qualities.some((q) => q.status === "encoding"));
      all.forEach((s, i) => s.encoding.qualities.some((q) => q.status === "encoding") && busy.add(ids[i]));
      if (encoding.length > 1) overlaps++;
      return all.every((s) => s.encoding.qualities.length > 0 && s.encoding.qualities.every((q) => q.status === "encoded"));
    });
    expect(busy.size).toBe(2); // each was seen encoding, one after the other
    expect(overlaps).toBe(0);
  } finally {
    await c.close();
  }
});

test("a clock jump during an encode does not start it a second time", async () => {
  // A lease looks expired once the clock jumps past it (suspend, NTP): the job still running in
  // this process must not be handed to a second worker.
  let offsetMs = 0;
  const clock = { now: () => new Date(Date.now() + offsetMs) };
  const c = await startTestAppliance({ clock, env: { ...NO_RATE_LIMITS, VIDHOST_FFMPEG: realTimeFfmpeg(), VIDHOST_ENCODING_CONCURRENCY: "2" } });
  const rxc = webhookReceiver();
  try {
    await c.api(c.sandboxKey, "POST", "/webhooks", { events: ["video.encoding.quality.completed"], url: rxc.url("/c") });
    const clip = await makeClip({ width: 320, height: 180, seconds: 2 });
    const videoId = await uploadVideo(c, c.sandboxKey, "sandbox", clip, "jump");
    await waitFor("encoding", async () => (await videoStatus(c, c.sandboxKey, videoId, "sandbox")).encoding.qualities.some((q) => q.status === "encoding"));
    offsetMs = 10 * 60_000;
    c.ctx.queue.notify();
    await waitEncoded(c, c.sandboxKey, videoId, "sandbox");
    const job = await waitFor("the encode job settled", () => {
      const j = c.ctx.db.select().from(jobs).where(eq(jobs.kind, ENCODE_JOB)).get()!;
      return j.status !== "running" && j.status !== "queued" ? j : null;
    });
    expect(job.status).toBe("done");
    expect(job.attempts).toBe(1);
    await waitFor("deliveries settled", () => rxc.bodies("/c").length >= 2 && !c.ctx.db.select().from(jobs).all().some((j) => j.kind === "webhook.deliver" && (j.status === "queued" || j.status === "running")));
    expect(rxc.bodies("/c").map((b) => `${b.encoding} ${b.quality}`).sort()).toEqual(["hls 240p", "mp4 240p"]);
  } finally {
    await c.close();
    rxc.stop();
  }
});

test("deleting a video mid-encode stops its ffmpeg, removes its files, and the queue goes on", async () => {
  const c = await startTestAppliance({ env: { ...NO_RATE_LIMITS, VIDHOST_FFMPEG: realTimeFfmpeg() } });
  try {
    const clip = await makeClip({ width: 320, height: 180, seconds: 2 });
    const doomed = await uploadVideo(c, c.sandboxKey, "sandbox", clip, "doomed");
    const next = await uploadVideo(c, c.sandboxKey, "sandbox", clip, "next"); // queued behind it (concurrency 1)
    await waitFor("encoding", async () => (await videoStatus(c, c.sandboxKey, doomed, "sandbox")).encoding.qualities.some((q) => q.status === "encoding"));
    expect((await c.api(c.sandboxKey, "DELETE", `/videos/${doomed}`)).status).toBe(204);
    const dir = c.ctx.storage.localPath(videoKey({ projectId: c.projectId, environment: "sandbox", id: doomed }));
    expect(existsSync(dir)).toBe(false);
    expect((await c.api(c.sandboxKey, "GET", `/videos/${doomed}/status`)).status).toBe(404);
    // The slot is free at once: the next video encodes, and nothing of the deleted one comes back.
    await waitEncoded(c, c.sandboxKey, next, "sandbox");
    expect(existsSync(dir)).toBe(false);
    expect(c.ctx.db.select().from(jobs).where(eq(jobs.kind, ENCODE_JOB)).all().map((j) => JSON.parse(j.payload).videoId)).toEqual([next]);
  } finally {
    await c.close();
  }
});

test("after a crash the encode resumes once its lease expires, and a crash on the last attempt fails it with a reason", async () => {
  const dataDir = tempDir();
  const clip = await makeClip({ width: 320, height: 180, seconds: 2 });
  const a = await startTestAppliance({ dataDir, env: { ...NO_RATE_LIMITS, VIDHOST_FFMPEG: realTimeFfmpeg(), VIDHOST_ENCODING_CONCURRENCY: "2" } });
  const key = a.sandboxKey;
  const [resumed, doomed] = await Promise.all(["resumed", "doomed"].map((t) => uploadVideo(a, key, "sandbox", clip, t)));
  for (const id of [resumed, doomed]) {
    await waitFor(`${id} encoding`, async () => (await videoStatus(a, key, id, "sandbox")).encoding.qualities.some((q) => q.status === "encoding"));
  }
  await a.close();
  // What a killed process leaves behind: the jobs still "running" under a lease nobody renews,
  // one on its first attempt and one on its last.
  const sqlite = new Database(join(dataDir, "vidhost.db"));
  const leaseUntil = Date.now() + 60_000;
  for (const [id, attempts] of [[resumed, 1], [doomed, 3]] as const) {
    sqlite.query("UPDATE jobs SET status = 'running', lease_owner = 'job_dead', lease_until = ?, attempts = ? WHERE kind = ? AND json_extract(payload, '$.videoId') = ?")
      .run(leaseUntil, attempts, ENCODE_JOB, id);
  }
  sqlite.close();

  let offsetMs = 0;
  const b = await startTestAppliance({ dataDir, clock: { now: () => new Date(Date.now() + offsetMs) }, env: NO_RATE_LIMITS });
  try {
    // Before the lease runs out nothing happens: the other process might still be alive.
    expect((await videoStatus(b, key, resumed, "sandbox")).encoding.qualities.some((q) => q.status === "encoding")).toBe(true);
    offsetMs = 2 * 60_000;
    b.ctx.queue.notify();
    const done = await waitEncoded(b, key, resumed, "sandbox");
    expect(done.encoding.playable).toBe(true);
    const failed = await waitFor("doomed failed", async () => {
      const s = await videoStatus(b, key, doomed, "sandbox");
      return s.encoding.qualities.length > 0 && s.encoding.qualities.every((q) => q.status === "failed") ? s : null;
    });
    expect(failed.encoding.failureReason).toMatch(/stopped before finishing/);
  } finally {
    await b.close();
  }
});
