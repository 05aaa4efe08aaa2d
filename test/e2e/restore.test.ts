// Video Restore (VIDHOST_VIDEO_RESTORE=true) with the official Node client: DELETE discards, the
// video leaves /videos, search, /tags and delivery, /discarded/videos lists and shows it with
// assets null, PATCH {discarded:false} restores it whole, and the schedule's purge (injected
// clock) deletes it with its media 90 days on. Without the setting, DELETE stays permanent.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import ApiVideoClient from "@api.video/nodejs-client";
import type { Clock } from "../../src/clock";
import { purgeDiscardedVideos } from "../../src/videos/discarded";
import { makeClip } from "../fixtures/media";
import { startTestAppliance, type TestAppliance } from "../helpers";
import { NO_RATE_LIMITS, uploadVideo, waitEncoded } from "./vod-support";

setDefaultTimeout(90_000);

const DAY_MS = 24 * 3600 * 1000;
let offsetMs = 0;
const clock: Clock = { now: () => new Date(Date.now() + offsetMs) };
let app: TestAppliance;
let project: { projectId: string; sandboxKey: string; productionKey: string };
let client: ApiVideoClient;
let clip: string;

beforeAll(async () => {
  app = await startTestAppliance({ clock, env: { ...NO_RATE_LIMITS, VIDHOST_VIDEO_RESTORE: "true" } });
  project = await app.newProject("Restore");
  client = new ApiVideoClient({ apiKey: project.productionKey, baseUri: app.urls.production });
  clip = await makeClip({ width: 320, height: 180, seconds: 1 });
});
afterAll(() => app?.close());

const fail = (promise: Promise<unknown>) => promise.then(() => { throw new Error("expected the call to fail"); }, (e) => e as { problemDetails: { status: number; name?: string; type: string } });
const mediaDir = (id: string) => join(app.dataDir, "media", project.projectId, "production", "videos", id);

async function encodedVideo(title: string, tags: string[]): Promise<string> {
  const id = await uploadVideo(app, project.productionKey, "production", clip, title, { tags });
  await waitEncoded(app, project.productionKey, id, "production");
  return id;
}

describe("discard and restore", () => {
  let id: string;
  let kept: string;

  beforeAll(async () => {
    [id, kept] = await Promise.all([encodedVideo("Binned clip", ["bin", "both"]), encodedVideo("Kept clip", ["both"])]);
  });

  test("DELETE discards: gone from /videos, search, /tags and delivery, media kept", async () => {
    const vod = `${app.urls.production}/vod/${id}`;
    expect((await fetch(`${vod}/hls/manifest.m3u8`)).status).toBe(200);
    const before = Date.now();
    await client.videos.delete(id);
    expect((await fail(client.videos.get(id))).problemDetails.status).toBe(404);
    expect((await fail(client.videos.getStatus(id))).problemDetails.status).toBe(404);
    expect((await fail(client.videos.update(id, { title: "x" }))).problemDetails.status).toBe(404);
    expect((await client.videos.list()).data.map((v) => v.videoId)).toEqual([kept]);
    const search = (await (await app.api(project.productionKey, "GET", "/videos/search?q=clip", undefined, "production")).json()) as { data: { videoId: string }[] };
    expect(search.data.map((v) => v.videoId)).toEqual([kept]);
    const tags = (await client.tags.list({})).data!.map((t) => [t.value, t.videoCount]);
    expect(tags).toEqual([["both", 1]]);
    for (const path of ["", "/hls/manifest.m3u8", "/hls/240p/index.m3u8", "/thumbnail.jpg", "/mp4/source.mp4"]) {
      expect([path, (await fetch(`${vod}${path}`)).status]).toEqual([path, 404]);
    }
    expect(existsSync(mediaDir(id))).toBe(true);
    expect((await fail(client.videos.delete(id))).problemDetails.status).toBe(404);

    const discarded = await client.videos.getDiscarded(id);
    expect(discarded.discarded).toBe(true);
    expect(discarded.assets ?? null).toBeNull();
    const discardedAt = discarded.discardedAt!.getTime();
    expect(discardedAt).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
    expect(discarded.deletesAt!.getTime()).toBe(discardedAt + 90 * DAY_MS);
  });

  test("/discarded/videos lists with the /videos filters, sort and pagination (and the WithResponseHeaders variants)", async () => {
    const other = await client.videos.create({ title: "Other binned", tags: ["bin"] });
    await client.videos.delete(other.videoId);
    const all = await client.videos.listDiscarded({ sortBy: "title", sortOrder: "asc" });
    expect(all.data.map((v) => v.title)).toEqual(["Binned clip", "Other binned"]);
    expect(all.data.every((v) => v.discarded && !v.assets)).toBe(true);
    expect(all.pagination.itemsTotal).toBe(2);
    expect((await client.videos.listDiscarded({ title: "other" })).data.map((v) => v.videoId)).toEqual([other.videoId]);
    expect((await client.videos.listDiscarded({ tags: ["both"] })).data.map((v) => v.videoId)).toEqual([id]);
    const paged = await client.videos.listDiscardedWithResponseHeaders({ pageSize: 1, currentPage: 2, sortBy: "title", sortOrder: "desc" });
    expect(paged.body.data.map((v) => v.title)).toEqual(["Binned clip"]);
    expect(paged.body.pagination.pagesTotal).toBe(2);
    expect(paged.headers["x-ratelimit-limit"]).toBeString();
    const single = await client.videos.getDiscardedWithResponseHeaders(other.videoId);
    expect(single.body.videoId).toBe(other.videoId);
    expect((await fail(client.videos.getDiscarded(kept))).problemDetails.status).toBe(404);
    const bad = await app.api(project.productionKey, "GET", "/discarded/videos?sortBy=size", undefined, "production");
    expect(bad.status).toBe(400);
  });

  test("PATCH restores only with {discarded:false}; anything else is a 400", async () => {
    const invalid = await fail(client.videos.updateDiscarded(id, { discarded: true }));
    expect(invalid.problemDetails.status).toBe(400);
    expect(invalid.problemDetails.name).toBe("discarded");
    for (const body of [{}, { discarded: "false" }, { discarded: false, title: "x" }]) {
      const res = await app.api(project.productionKey, "PATCH", `/discarded/videos/${id}`, body, "production");
      expect([JSON.stringify(body), res.status]).toEqual([JSON.stringify(body), 400]);
    }
    expect((await fail(client.videos.updateDiscarded(kept, { discarded: false }))).problemDetails.status).toBe(404);

    const restored = await client.videos.updateDiscardedWithResponseHeaders(id, { discarded: false });
    expect(restored.body.videoId).toBe(id);
    expect(restored.body.discarded).toBe(false);
    expect(restored.body.discardedAt ?? null).toBeNull();
    expect(restored.body.deletesAt ?? null).toBeNull();
    expect(restored.body.assets!.hls).toBe(`${app.urls.production}/vod/${id}/hls/manifest.m3u8`);
    expect((await fetch(restored.body.assets!.hls!)).status).toBe(200);
    expect((await client.videos.get(id)).title).toBe("Binned clip");
    expect((await client.tags.list({ value: "bin" })).data).toEqual([{ value: "bin", videoCount: 1 }]);
    expect((await fail(client.videos.getDiscarded(id))).problemDetails.status).toBe(404);
  });

  test("the purge deletes discarded videos with their media once 90 days have passed", async () => {
    await client.videos.delete(id);
    expect(await purgeDiscardedVideos(app.ctx)).toBe(0);
    offsetMs = 90 * DAY_MS - 60_000;
    expect(await purgeDiscardedVideos(app.ctx)).toBe(0);
    offsetMs = 90 * DAY_MS + 60_000;
    try {
      expect(await purgeDiscardedVideos(app.ctx)).toBe(2); // this one and "Other binned"
    } finally {
      offsetMs = 0;
    }
    expect(existsSync(mediaDir(id))).toBe(false);
    expect((await fail(client.videos.getDiscarded(id))).problemDetails.status).toBe(404);
    expect((await client.videos.listDiscarded()).data).toEqual([]);
    expect((await client.videos.get(kept)).videoId).toBe(kept);
  });
});

describe("a discarded private video", () => {
  test("has no assets, mints no tokens, and its old tokens stop working", async () => {
    const video = await client.videos.create({ title: "Private then binned", _public: false });
    const token = /\/token\/([0-9a-f-]{36})\//.exec(video.assets!.hls!)![1];
    await client.videos.delete(video.videoId);
    expect((await fetch(`${app.urls.production}/vod/${video.videoId}/token/${token}/session`)).status).toBe(404);
    expect((await client.videos.getDiscarded(video.videoId)).assets ?? null).toBeNull();
    const restored = await client.videos.updateDiscarded(video.videoId, { discarded: false });
    expect(restored.assets!.hls).toContain("/token/");
    expect((await fetch(`${app.urls.production}/vod/${video.videoId}/token/${token}/session`)).status).toBe(200);
  });
});

test("without VIDHOST_VIDEO_RESTORE, DELETE is permanent and nothing is discarded", async () => {
  const plain = await startTestAppliance({ env: NO_RATE_LIMITS });
  try {
    const c = new ApiVideoClient({ apiKey: plain.sandboxKey, baseUri: plain.urls.sandbox });
    const video = await c.videos.create({ title: "Gone for good" });
    await c.videos.delete(video.videoId);
    expect((await fail(c.videos.get(video.videoId))).problemDetails.status).toBe(404);
    expect((await fail(c.videos.getDiscarded(video.videoId))).problemDetails.status).toBe(404);
    expect((await c.videos.listDiscarded()).data).toEqual([]);
  } finally {
    await plain.close();
  }
});
