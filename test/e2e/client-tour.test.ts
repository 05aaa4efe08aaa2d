// Every public method of the official @api.video/nodejs-client, called at least once against a real
// server. Each API object of the client is wrapped in a recorder; the last test compares what was
// called with the methods the client's classes actually have, so a method added by a client
// upgrade, or one this tour forgets, fails the suite.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import ApiVideoClient from "@api.video/nodejs-client";
import AdvancedAuthenticationApi from "@api.video/nodejs-client/lib/api/AdvancedAuthenticationApi";
import HttpClient from "@api.video/nodejs-client/lib/HttpClient";
import { makeClip } from "../fixtures/media";
import { startTestAppliance, type TestAppliance } from "../helpers";
import { makeImage, NO_RATE_LIMITS } from "./vod-support";
import { clientApiClasses, recordCalls } from "./client-recorder";

setDefaultTimeout(120_000);

const called = new Set<string>();
let app: TestAppliance;
let client: ApiVideoClient;
let clip: string;
let thumbnail: string;

/** The client's API objects, each recording the methods called on it as `group.method`. */
const api = {
  get videos() { return recordCalls(client.videos, "VideosApi", called); },
  get liveStreams() { return recordCalls(client.liveStreams, "LiveStreamsApi", called); },
  get captions() { return recordCalls(client.captions, "CaptionsApi", called); },
  get chapters() { return recordCalls(client.chapters, "ChaptersApi", called); },
  get summaries() { return recordCalls(client.summaries, "SummariesApi", called); },
  get tags() { return recordCalls(client.tags, "TagsApi", called); },
  get uploadTokens() { return recordCalls(client.uploadTokens, "UploadTokensApi", called); },
  get analytics() { return recordCalls(client.analytics, "AnalyticsApi", called); },
  get playerThemes() { return recordCalls(client.playerThemes, "PlayerThemesApi", called); },
  get watermarks() { return recordCalls(client.watermarks, "WatermarksApi", called); },
  get webhooks() { return recordCalls(client.webhooks, "WebhooksApi", called); },
  get auth() { return recordCalls(new AdvancedAuthenticationApi(new HttpClient({ baseUri: app.urls.sandbox, chunkSize: 0 })), "AdvancedAuthenticationApi", called); },
};

const VTT = "WEBVTT\n\n00:00:00.000 --> 00:00:01.000\nHello there\n";
const CHAPTERS = "WEBVTT\n\n00:00:00.000 --> 00:00:01.000\nOpening\n";

beforeAll(async () => {
  [clip, thumbnail] = await Promise.all([makeClip({ width: 160, height: 120, seconds: 1 }), makeImage("jpg")]);
  // With Video Restore on, deletes discard, so the discarded-video methods have something to find.
  app = await startTestAppliance({ env: { ...NO_RATE_LIMITS, VIDHOST_VIDEO_RESTORE: "true" } });
  client = new ApiVideoClient({ apiKey: app.sandboxKey, baseUri: app.urls.sandbox });
});
afterAll(() => app?.close());

describe("authentication", () => {
  test("getAccessToken, authenticate and refresh", async () => {
    const token = await client.getAccessToken();
    called.add("ApiVideoClient.getAccessToken");
    expect(token.tokenType?.toLowerCase()).toBe("bearer");
    const auth = await api.auth.authenticate({ apiKey: app.sandboxKey });
    const refreshed = await api.auth.refresh({ refreshToken: auth.refreshToken! });
    expect(refreshed.accessToken).not.toBe(auth.accessToken);
    const again = await api.auth.authenticateWithResponseHeaders({ apiKey: app.sandboxKey });
    expect(again.headers["x-ratelimit-limit"]).toBeDefined();
    const rotated = await api.auth.refreshWithResponseHeaders({ refreshToken: again.body.refreshToken! });
    expect(rotated.body.refreshToken).not.toBe(again.body.refreshToken);
  });
});

describe("videos", () => {
  test("create, get, update, list, status, delete", async () => {
    const video = await api.videos.create({ title: "Tour", tags: ["tour"], metadata: [{ key: "k", value: "v" }] });
    const second = await api.videos.createWithResponseHeaders({ title: "Tour 2", tags: ["tour"] });
    expect(second.headers["x-ratelimit-remaining"]).toBeDefined();
    expect((await api.videos.get(video.videoId)).title).toBe("Tour");
    expect((await api.videos.getWithResponseHeaders(video.videoId)).body.videoId).toBe(video.videoId);
    expect((await api.videos.update(video.videoId, { description: "d" })).description).toBe("d");
    expect((await api.videos.updateWithResponseHeaders(video.videoId, { title: "Tour one" })).body.title).toBe("Tour one");
    expect((await api.videos.list({ tags: ["tour"] })).data.map((v) => v.videoId).sort()).toEqual([video.videoId, second.body.videoId].sort());
    expect((await api.videos.listWithResponseHeaders({ title: "Tour one" })).body.data.map((v) => v.videoId)).toEqual([video.videoId]);
    expect((await api.videos.getStatus(video.videoId)).ingest?.status).toBeFalsy();
    expect((await api.videos.getStatusWithResponseHeaders(video.videoId)).body.encoding?.playable).toBe(false);
    await api.videos.delete(video.videoId);
    await api.videos.deleteWithResponseHeaders(second.body.videoId);
    expect((await api.videos.list({ tags: ["tour"] })).data).toEqual([]);
  });

  test("discarded videos: list, get, restore", async () => {
    const [a, b] = await Promise.all([api.videos.create({ title: "bin a" }), api.videos.create({ title: "bin b" })]);
    await api.videos.delete(a.videoId);
    await api.videos.delete(b.videoId);
    expect((await api.videos.listDiscarded({ title: "bin" })).data.map((v) => v.videoId).sort()).toEqual([a.videoId, b.videoId].sort());
    expect((await api.videos.listDiscardedWithResponseHeaders({ title: "bin a" })).body.data.map((v) => v.videoId)).toEqual([a.videoId]);
    expect((await api.videos.getDiscarded(a.videoId)).discarded).toBe(true);
    expect((await api.videos.getDiscardedWithResponseHeaders(b.videoId)).body.assets).toBeFalsy();
    expect((await api.videos.updateDiscarded(a.videoId, { discarded: false })).discarded).toBe(false);
    expect((await api.videos.updateDiscardedWithResponseHeaders(b.videoId, { discarded: false })).body.discarded).toBe(false);
    expect((await api.videos.list({ title: "bin" })).data.length).toBe(2);
  });

  test("uploads: whole, progressive, with a token, progressive with a token", async () => {
    const a = await api.videos.create({ title: "whole" });
    expect((await api.videos.upload(a.videoId, clip)).videoId).toBe(a.videoId);
    const b = await api.videos.create({ title: "whole with headers" });
    expect((await api.videos.uploadWithResponseHeaders(b.videoId, clip)).body.videoId).toBe(b.videoId);

    const c = await api.videos.create({ title: "progressive" });
    const session = api.videos.createUploadProgressiveSession(c.videoId);
    // Every part but the last must be 5 MiB: the tiny clip goes as the only, last part.
    expect((await session.uploadLastPart(clip)).videoId).toBe(c.videoId);

    const token = await api.uploadTokens.createToken({ ttl: 3600 });
    expect((await api.videos.uploadWithUploadToken(token.token!, clip)).title).toBeTruthy();
    expect((await api.videos.uploadWithUploadTokenWithResponseHeaders(token.token!, clip)).body.videoId).toMatch(/^vi/);
    const tokenSession = api.videos.createUploadWithUploadTokenProgressiveSession(token.token!);
    const viaToken = await tokenSession.uploadLastPart(clip);
    expect((await api.videos.getStatus(viaToken.videoId)).ingest?.status).toBe("uploaded");
  });

  test("thumbnails: upload and pick", async () => {
    const video = await api.videos.create({ title: "thumbs" });
    expect((await api.videos.uploadThumbnail(video.videoId, thumbnail)).videoId).toBe(video.videoId);
    expect((await api.videos.uploadThumbnailWithResponseHeaders(video.videoId, thumbnail)).body.videoId).toBe(video.videoId);
    expect((await api.videos.pickThumbnail(video.videoId, { timecode: "00:00:00.500" })).videoId).toBe(video.videoId);
    expect((await api.videos.pickThumbnailWithResponseHeaders(video.videoId, { timecode: "00:00:00:01" })).body.videoId).toBe(video.videoId);
  });
});

describe("upload tokens", () => {
  test("create, get, list, delete", async () => {
    const a = await api.uploadTokens.createToken({ ttl: 60 });
    const b = await api.uploadTokens.createTokenWithResponseHeaders({});
    expect((await api.uploadTokens.getToken(a.token!)).ttl).toBe(60);
    expect((await api.uploadTokens.getTokenWithResponseHeaders(b.body.token!)).body.token).toBe(b.body.token);
    expect((await api.uploadTokens.list({})).data.map((t) => t.token)).toEqual(expect.arrayContaining([a.token, b.body.token]));
    expect((await api.uploadTokens.listWithResponseHeaders({ sortBy: "ttl", sortOrder: "asc" })).body.pagination.itemsTotal).toBeGreaterThanOrEqual(2);
    await api.uploadTokens.deleteToken(a.token!);
    await api.uploadTokens.deleteTokenWithResponseHeaders(b.body.token!);
    await expect(api.uploadTokens.getToken(a.token!)).rejects.toMatchObject({ code: 404 });
  });
});

describe("tags", () => {
  test("list with and without headers", async () => {
    await api.videos.create({ title: "tagged", tags: ["Élan", "elevator"] });
    expect((await api.tags.list({ value: "ela" })).data?.map((t) => t.value)).toEqual(["Élan"]);
    expect((await api.tags.listWithResponseHeaders({ sortBy: "value", sortOrder: "desc" })).body.data?.length).toBeGreaterThanOrEqual(2);
  });
});

describe("captions and chapters", () => {
  test("captions: upload, get, update, list, delete", async () => {
    const { videoId } = await api.videos.create({ title: "captions" });
    expect((await api.captions.upload(videoId, "en", Buffer.from(VTT))).srclang).toBe("en");
    expect((await api.captions.uploadWithResponseHeaders(videoId, "fr", Buffer.from(VTT))).body.srclang).toBe("fr");
    expect((await api.captions.get(videoId, "en")).srclang).toBe("en");
    expect((await api.captions.getWithResponseHeaders(videoId, "fr")).body.srclang).toBe("fr");
    expect((await api.captions.update(videoId, "en", { _default: true }))._default).toBe(true);
    expect((await api.captions.updateWithResponseHeaders(videoId, "fr", { _default: true })).body._default).toBe(true);
    expect((await api.captions.list({ videoId })).data.length).toBe(2);
    expect((await api.captions.listWithResponseHeaders({ videoId, pageSize: 1 })).body.pagination.pagesTotal).toBe(2);
    await api.captions.delete(videoId, "en");
    await api.captions.deleteWithResponseHeaders(videoId, "fr");
    expect((await api.captions.list({ videoId })).data).toEqual([]);
  });

  test("chapters: upload, get, list, delete", async () => {
    const { videoId } = await api.videos.create({ title: "chapters" });
    expect((await api.chapters.upload(videoId, "en", Buffer.from(CHAPTERS))).language).toBe("en");
    expect((await api.chapters.uploadWithResponseHeaders(videoId, "de", Buffer.from(CHAPTERS))).body.language).toBe("de");
    expect((await api.chapters.get(videoId, "en")).language).toBe("en");
    expect((await api.chapters.getWithResponseHeaders(videoId, "de")).body.language).toBe("de");
    expect((await api.chapters.list({ videoId })).data.length).toBe(2);
    expect((await api.chapters.listWithResponseHeaders({ videoId })).body.pagination.itemsTotal).toBe(2);
    await api.chapters.delete(videoId, "en");
    await api.chapters.deleteWithResponseHeaders(videoId, "de");
    expect((await api.chapters.list({ videoId })).data).toEqual([]);
  });
});

describe("summaries", () => {
  test("create, update the source, get it, list, delete", async () => {
    const [one, two] = await Promise.all([api.videos.create({ title: "s1" }), api.videos.create({ title: "s2" })]);
    const a = await api.summaries.create({ videoId: one.videoId });
    const b = await api.summaries.createWithResponseHeaders({ videoId: two.videoId });
    expect((await api.summaries.update(a.summaryId!, { _abstract: "Short.", takeaways: ["One"] }))._abstract).toBe("Short.");
    expect((await api.summaries.updateWithResponseHeaders(b.body.summaryId!, { _abstract: "Other." })).body._abstract).toBe("Other.");
    expect((await api.summaries.getSummarySource(a.summaryId!)).takeaways).toEqual(["One"]);
    expect((await api.summaries.getSummarySourceWithResponseHeaders(b.body.summaryId!)).body._abstract).toBe("Other.");
    expect((await api.summaries.list({ sourceStatus: "completed" })).data.length).toBeGreaterThanOrEqual(2);
    expect((await api.summaries.listWithResponseHeaders({ videoId: one.videoId })).body.data.map((s) => s.summaryId)).toEqual([a.summaryId]);
    await api.summaries.delete(a.summaryId!);
    await api.summaries.deleteWithResponseHeaders(b.body.summaryId!);
    expect((await api.summaries.list({ videoId: one.videoId })).data).toEqual([]);
  });
});

describe("live streams", () => {
  test("create, get, update, list, thumbnail, complete, delete", async () => {
    const a = await api.liveStreams.create({ name: "tour live" });
    const b = await api.liveStreams.createWithResponseHeaders({ name: "tour live 2", _public: false });
    expect((await api.liveStreams.get(a.liveStreamId)).name).toBe("tour live");
    expect((await api.liveStreams.getWithResponseHeaders(b.body.liveStreamId)).body._public).toBe(false);
    expect((await api.liveStreams.update(a.liveStreamId, { name: "renamed" })).name).toBe("renamed");
    expect((await api.liveStreams.updateWithResponseHeaders(b.body.liveStreamId, { _public: true })).body._public).toBe(true);
    expect((await api.liveStreams.list({ name: "renamed" })).data.map((l) => l.liveStreamId)).toEqual([a.liveStreamId]);
    expect((await api.liveStreams.listWithResponseHeaders({ sortBy: "name" })).body.pagination.itemsTotal).toBeGreaterThanOrEqual(2);
    expect((await api.liveStreams.uploadThumbnail(a.liveStreamId, thumbnail)).assets?.thumbnail).toBeTruthy();
    await api.liveStreams.uploadThumbnailWithResponseHeaders(b.body.liveStreamId, thumbnail);
    await api.liveStreams.deleteThumbnail(a.liveStreamId);
    await api.liveStreams.deleteThumbnailWithResponseHeaders(b.body.liveStreamId);
    // Completing a stream that is not broadcasting is accepted and changes nothing.
    await api.liveStreams.complete(a.liveStreamId);
    await api.liveStreams.completeWithResponseHeaders(b.body.liveStreamId);
    expect((await api.liveStreams.get(a.liveStreamId)).broadcasting).toBe(false);
    await api.liveStreams.delete(a.liveStreamId);
    await api.liveStreams.deleteWithResponseHeaders(b.body.liveStreamId);
    await expect(api.liveStreams.get(a.liveStreamId)).rejects.toMatchObject({ code: 404 });
  });
});

describe("player themes", () => {
  test("create, get, update, list, logo, delete", async () => {
    const a = await api.playerThemes.create({ name: "tour theme", link: "rgba(255, 0, 0, 1)" });
    const b = await api.playerThemes.createWithResponseHeaders({ name: "second", hideTitle: true });
    expect((await api.playerThemes.get(a.playerId)).link).toBe("rgba(255, 0, 0, 1)");
    expect((await api.playerThemes.getWithResponseHeaders(b.body.playerId)).body.hideTitle).toBe(true);
    expect((await api.playerThemes.update(a.playerId, { forceLoop: true })).forceLoop).toBe(true);
    expect((await api.playerThemes.updateWithResponseHeaders(b.body.playerId, { name: "renamed" })).body.name).toBe("renamed");
    expect((await api.playerThemes.list({ sortBy: "name", sortOrder: "asc" })).data.map((p) => p.name)).toEqual(["renamed", "tour theme"]);
    expect((await api.playerThemes.listWithResponseHeaders({ pageSize: 1 })).body.pagination.pagesTotal).toBe(2);
    const logo = await makeImage("png", "blue", "100x50");
    expect((await api.playerThemes.uploadLogo(a.playerId, logo, "https://example.com")).assets?.link).toBe("https://example.com");
    expect((await api.playerThemes.uploadLogoWithResponseHeaders(b.body.playerId, logo)).body.assets?.logo).toBeTruthy();
    await api.playerThemes.deleteLogo(a.playerId);
    await api.playerThemes.deleteLogoWithResponseHeaders(b.body.playerId);
    expect((await api.playerThemes.get(a.playerId)).assets?.logo).toBeUndefined();
    await api.playerThemes.delete(a.playerId);
    await api.playerThemes.deleteWithResponseHeaders(b.body.playerId);
    expect((await api.playerThemes.list({})).data).toEqual([]);
  });
});

describe("analytics", () => {
  test("aggregated, breakdown and over time, after a player reported a play", async () => {
    const { videoId } = await api.videos.create({ title: "watched" });
    // What the player page's reporter sends (src/analytics/beacon.ts).
    const report = { mediaId: videoId, sessionId: "tour-session-0001", referrer: "", events: [{ type: "impression", age: 2 }, { type: "play", age: 1 }, { type: "start", age: 1 }] };
    const sent = await fetch(`${app.urls.sandbox}/analytics/events`, { method: "POST", headers: { "content-type": "text/plain" }, body: JSON.stringify(report) });
    expect(sent.status).toBeLessThan(300);
    const filterBy = { mediaId: [videoId] };
    expect((await api.analytics.getAggregatedMetrics({ metric: "play", aggregation: "count", filterBy })).data).toBe(1);
    expect((await api.analytics.getAggregatedMetricsWithResponseHeaders({ metric: "impression", aggregation: "count", filterBy })).body.data).toBe(1);
    expect((await api.analytics.getMetricsBreakdown({ metric: "play", breakdown: "media-id" })).data).toEqual([{ dimensionValue: videoId, metricValue: 1 }]);
    expect((await api.analytics.getMetricsBreakdownWithResponseHeaders({ metric: "start", breakdown: "media-type" })).body.data).toEqual([{ dimensionValue: "video", metricValue: 1 }]);
    expect((await api.analytics.getMetricsOverTime({ metric: "play", interval: "hour" })).data.map((p) => p.metricValue)).toEqual([1]);
    expect((await api.analytics.getMetricsOverTimeWithResponseHeaders({ metric: "impression", filterBy })).body.data.map((p) => p.metricValue)).toEqual([1]);
  });
});

describe("watermarks", () => {
  test("upload, list, delete", async () => {
    const image = await makeImage("png", "red", "32x32");
    const a = await api.watermarks.upload(image);
    const b = await api.watermarks.uploadWithResponseHeaders(image);
    expect(a.watermarkId).toMatch(/^watermark_/);
    expect((await api.watermarks.list({ sortBy: "createdAt", sortOrder: "asc" })).data.map((w) => w.watermarkId)).toEqual([a.watermarkId, b.body.watermarkId]);
    expect((await api.watermarks.listWithResponseHeaders({ pageSize: 1 })).body.pagination.pagesTotal).toBe(2);
    // A watermark given on create is checked then; burning it in is test/e2e/watermarks.test.ts's work.
    expect((await api.videos.create({ title: "marked", watermark: { id: a.watermarkId, top: "0px", left: "0px", width: "10%" } })).videoId).toMatch(/^vi/);
    await api.watermarks.delete(a.watermarkId!);
    await api.watermarks.deleteWithResponseHeaders(b.body.watermarkId!);
    expect((await api.watermarks.list({})).data).toEqual([]);
  });
});

describe("webhooks", () => {
  test("create, get, list, delete", async () => {
    const a = await api.webhooks.create({ url: "https://example.com/a", events: ["video.encoding.quality.completed"] });
    const b = await api.webhooks.createWithResponseHeaders({ url: "https://example.com/b", events: ["live-stream.broadcast.started"] });
    expect((await api.webhooks.get(a.webhookId!)).url).toBe("https://example.com/a");
    expect((await api.webhooks.getWithResponseHeaders(b.body.webhookId!)).body.events).toEqual(["live-stream.broadcast.started"]);
    expect((await api.webhooks.list({ events: "live-stream.broadcast.started" })).data.map((w) => w.webhookId)).toEqual([b.body.webhookId]);
    expect((await api.webhooks.listWithResponseHeaders({})).body.data.length).toBe(2);
    await api.webhooks.delete(a.webhookId!);
    await api.webhooks.deleteWithResponseHeaders(b.body.webhookId!);
    expect((await api.webhooks.list({})).data).toEqual([]);
  });
});

test("every public method of every API class of the client was called", () => {
  const expected = ["ApiVideoClient.getAccessToken"];
  for (const [name, cls] of Object.entries(clientApiClasses())) {
    for (const method of Object.getOwnPropertyNames(cls.prototype)) if (method !== "constructor") expected.push(`${name}.${method}`);
  }
  expect(expected.length).toBeGreaterThan(100);
  expect(expected.filter((m) => !called.has(m)).sort()).toEqual([]);
});
