// Sandbox rules end to end: sources cut to 30 s, the SANDBOX watermark burned in, and the purge
// of sandbox videos 24 hours after upload (with an injected clock), production left alone.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync } from "node:fs";
import type { Clock } from "../../src/clock";
import { videoKey } from "../../src/videos/service";
import { purgeExpiredVideos } from "../../src/videos/purge";
import { ffprobeJson, makeClip } from "../fixtures/media";
import { startTestAppliance, type TestAppliance } from "../helpers";
import { NO_RATE_LIMITS, regionDiff, rgbFrame, uploadVideo, waitEncoded } from "./vod-support";

setDefaultTimeout(180_000);

const DAY_MS = 24 * 3600 * 1000;
let offsetMs = 0;
const clock: Clock = { now: () => new Date(Date.now() + offsetMs) };

let app: TestAppliance;
let project: { projectId: string; sandboxKey: string; productionKey: string };

beforeAll(async () => {
  app = await startTestAppliance({ clock, env: NO_RATE_LIMITS });
  project = await app.newProject("Sandbox rules");
});
afterAll(() => app?.close());

describe("a 40 s sandbox upload", () => {
  const W = 320;
  const H = 180;
  let source: string;
  let videoId: string;
  let vod: string;

  beforeAll(async () => {
    source = await makeClip({ width: W, height: H, seconds: 40 });
    videoId = await uploadVideo(app, project.sandboxKey, "sandbox", source, "long sandbox clip");
    vod = `${app.urls.sandbox}/vod/${videoId}`;
    await waitEncoded(app, project.sandboxKey, videoId, "sandbox", 150_000);
  });

  test("comes out at most 30 s long, as HLS and as MP4", async () => {
    const hls = await ffprobeJson(`${vod}/hls/manifest.m3u8`);
    const mp4 = await ffprobeJson(`${vod}/mp4/source.mp4`);
    for (const probe of [hls, mp4]) {
      const duration = Number(probe.format.duration);
      expect(duration).toBeLessThanOrEqual(30.5);
      expect(duration).toBeGreaterThanOrEqual(29);
    }
  });

  test("carries the SANDBOX watermark bottom right, and only there", async () => {
    // The same frame (by number: both run at 25 fps from frame 0) of the source and of each output.
    for (const output of [`${vod}/mp4/source.mp4`, `${vod}/hls/240p/index.m3u8`]) {
      const [src, out] = await Promise.all([rgbFrame(source, 100, W, H), rgbFrame(output, 100, W, H)]);
      expect(out.byteLength).toBe(W * H * 3);
      const corner = regionDiff(src, out, W, { x: W - 80, y: H - 24, w: 64, h: 12 });
      const topLeft = regionDiff(src, out, W, { x: 0, y: 0, w: W / 2, h: H / 2 });
      const left = regionDiff(src, out, W, { x: 0, y: H / 2, w: W / 2, h: H / 2 });
      // Encoding noise is a few levels; the mark changes the corner by tens.
      expect(corner).toBeGreaterThan(20);
      expect(topLeft).toBeLessThan(8);
      expect(left).toBeLessThan(8);
    }
  });
  test("a thumbnail picked past the 30 s cut is the first frame, like any time past the end", async () => {
    const res = await app.api(project.sandboxKey, "PATCH", `/videos/${videoId}/thumbnail`, { timecode: "00:00:35" });
    expect(res.status).toBe(200);
    const [thumb, first, at35] = await Promise.all([
      rgbFrame(`${vod}/thumbnail.jpg`, 0, W, H), rgbFrame(source, 0, W, H), rgbFrame(source, 35 * 25, W, H),
    ]);
    const full = { x: 0, y: 0, w: W, h: H };
    expect(regionDiff(thumb, first, W, full)).toBeLessThan(6);
    expect(regionDiff(thumb, at35, W, full)).toBeGreaterThan(regionDiff(thumb, first, W, full) * 2);
  });
});

describe("the 24-hour purge", () => {
  test("deletes expired sandbox videos with their media and leaves production alone", async () => {
    offsetMs = 0;
    const clip = await makeClip({ width: 320, height: 180, seconds: 1 });
    const [sandboxId, productionId] = await Promise.all([
      uploadVideo(app, project.sandboxKey, "sandbox", clip, "expires"),
      uploadVideo(app, project.productionKey, "production", clip, "stays"),
    ]);
    await Promise.all([
      waitEncoded(app, project.sandboxKey, sandboxId, "sandbox"),
      waitEncoded(app, project.productionKey, productionId, "production"),
    ]);
    const video = (await (await app.api(project.sandboxKey, "GET", `/videos/${sandboxId}`)).json()) as { deletesAt: string };
    expect(Date.parse(video.deletesAt) - Date.now()).toBeGreaterThan(DAY_MS - 60_000);
    expect(Date.parse(video.deletesAt) - Date.now()).toBeLessThanOrEqual(DAY_MS);
    const sandboxDir = app.ctx.storage.localPath(videoKey({ projectId: project.projectId, environment: "sandbox", id: sandboxId }));
    const productionDir = app.ctx.storage.localPath(videoKey({ projectId: project.projectId, environment: "production", id: productionId }));
    expect(existsSync(sandboxDir)).toBe(true);

    // Almost a day later: nothing is due yet.
    offsetMs = DAY_MS - 60_000;
    expect(await purgeExpiredVideos(app.ctx)).toBe(0);
    expect((await app.api(project.sandboxKey, "GET", `/videos/${sandboxId}`)).status).toBe(200);

    // Past the day: the sandbox video goes, with its files and its delivery URLs.
    offsetMs = DAY_MS + 1000;
    const sandboxVideos = (await (await app.api(project.sandboxKey, "GET", "/videos")).json()) as { data: unknown[] };
    expect(await purgeExpiredVideos(app.ctx)).toBe(sandboxVideos.data.length); // this one and the 40 s one
    expect(((await (await app.api(project.sandboxKey, "GET", "/videos")).json()) as { data: unknown[] }).data).toEqual([]);
    expect((await app.api(project.sandboxKey, "GET", `/videos/${sandboxId}`)).status).toBe(404);
    expect(existsSync(sandboxDir)).toBe(false);
    expect((await fetch(`${app.urls.sandbox}/vod/${sandboxId}/mp4/source.mp4`)).status).toBe(404);
    expect((await fetch(`${app.urls.sandbox}/vod/${sandboxId}/hls/manifest.m3u8`)).status).toBe(404);

    // Production is untouched, even much later.
    offsetMs = 30 * DAY_MS;
    expect(await purgeExpiredVideos(app.ctx)).toBe(0);
    expect((await app.api(project.productionKey, "GET", `/videos/${productionId}`, undefined, "production")).status).toBe(200);
    expect(existsSync(productionDir)).toBe(true);
    expect((await fetch(`${app.urls.production}/vod/${productionId}/mp4/source.mp4`)).status).toBe(200);
    offsetMs = 0;
  });
});
