// Analytics end to end: Chromium plays the real player page, its reporter posts impression, play,
// start, end and heartbeats (the last one by sendBeacon on leaving), and the official Node client's
// analytics calls return the numbers those views imply; plus the collection endpoint's refusals
// and the /data errors through the client.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import ApiVideoClient from "@api.video/nodejs-client";
import { and, eq } from "drizzle-orm";
import type { Browser, Page } from "playwright-core";
import { analyticsEvents } from "../../src/db/schema";
import { chromiumAvailable, launchBrowser } from "../browser";
import { makeClip } from "../fixtures/media";
import { startTestAppliance, waitFor, type TestAppliance } from "../helpers";
import { NO_RATE_LIMITS, uploadVideo, waitEncoded } from "./vod-support";

setDefaultTimeout(120_000);

const REFERRER = "https://blog.example/post";
const fail = (promise: Promise<unknown>) => promise.then(() => { throw new Error("expected the call to fail"); }, (e) => e as { problemDetails: Record<string, unknown>; code?: number });

describe.skipIf(!chromiumAvailable())("analytics from the player page to the client", () => {
  let app: TestAppliance;
  let browser: Browser;
  let project: { projectId: string; sandboxKey: string; productionKey: string };
  let videoId: string;
  let client: ApiVideoClient;

  const events = (type?: string) => app.ctx.db.select().from(analyticsEvents)
    .where(type ? and(eq(analyticsEvents.mediaId, videoId), eq(analyticsEvents.type, type)) : eq(analyticsEvents.mediaId, videoId)).all();

  /** Opens the player page in a fresh context whose requests carry the viewer's country. */
  async function open(country: string, referer?: string): Promise<Page> {
    const context = await browser.newContext({ extraHTTPHeaders: { "x-test-country": country } });
    const page = await context.newPage();
    await page.goto(`${app.urls.production}/vod/${videoId}#autoplay`, referer ? { referer } : {});
    return page;
  }

  beforeAll(async () => {
    const clip = await makeClip({ width: 320, height: 180, seconds: 4 });
    [app, browser] = await Promise.all([
      startTestAppliance({ env: { ...NO_RATE_LIMITS, VIDHOST_COUNTRY_HEADER: "X-Test-Country", VIDHOST_ANALYTICS_RATE_LIMIT: "200" } }),
      launchBrowser(),
    ]);
    project = await app.newProject("Analytics");
    videoId = await uploadVideo(app, project.productionKey, "production", clip, "Analytics clip");
    await waitEncoded(app, project.productionKey, videoId, "production");
    client = new ApiVideoClient({ apiKey: project.productionKey, baseUri: app.urls.production });

    // Viewer 1 (FR, from a blog) watches to the end; viewer 2 (DE, direct) leaves after 1.5 s.
    const first = await open("FR", REFERRER);
    await waitFor("the video ends", () => first.$eval("video", (v) => (v as HTMLVideoElement).ended), 60_000, 100);
    await waitFor("the end event", () => events("end").length === 1, 10_000, 50);
    await first.context().close();
    const second = await open("DE");
    // Paused in the same step that sees 1.5 s, so this viewer stays under the 3 s view threshold however slow the machine.
    await waitFor("currentTime > 1.5", () => second.$eval("video", (v) => {
      const video = v as HTMLVideoElement;
      if (video.currentTime <= 1.5) return false;
      video.pause();
      return true;
    }), 30_000, 50);
    await waitFor("the start event", () => events("start").length === 2, 10_000, 50);
    await second.goto("about:blank"); // pagehide: the last heartbeat goes by sendBeacon
    await waitFor("the beacon heartbeat", () => events("heartbeat").length >= 1, 10_000, 50);
    await second.context().close();
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  test("the events arrive with their dimensions", () => {
    const rows = events();
    expect(rows.filter((r) => r.type === "impression").length).toBe(2);
    expect(rows.filter((r) => r.type === "play").length).toBe(2);
    expect(new Set(rows.map((r) => r.sessionId)).size).toBe(2);
    const first = rows.find((r) => r.country === "FR")!;
    expect(first).toMatchObject({ continent: "EU", deviceType: "computer", operatingSystem: "linux", browser: "chrome", referrer: REFERRER, mediaType: "video", environment: "production" });
    expect(rows.find((r) => r.country === "DE")).toMatchObject({ continent: "EU", referrer: "" });
  });

  test("aggregated metrics through getAggregatedMetrics", async () => {
    const value = async (metric: string, aggregation: string, extra: Record<string, unknown> = {}) =>
      (await client.analytics.getAggregatedMetrics({ metric: metric as "play", aggregation: aggregation as "count", ...extra })).data;
    expect(await value("impression", "count")).toBe(2);
    expect(await value("play", "count")).toBe(2);
    expect(await value("play", "rate")).toBe(1);
    expect(await value("play", "total")).toBe(2);
    expect(await value("start", "count")).toBe(2);
    expect(await value("end", "count")).toBe(1);
    expect(await value("view", "count", { viewDuration: "3s" })).toBe(1);
    expect(await value("view", "count", { viewDuration: "3s", unique: true })).toBe(1);
    expect(await value("ccv", "peak")).toBe(1);
    const watched = await value("watch-time", "sum");
    expect(watched).toBeGreaterThan(4.5);
    expect(watched).toBeLessThan(12);
    expect(await value("watch-time", "average")).toBeCloseTo(watched / 2, 2);
    expect(await value("impression-time", "average")).toBeGreaterThan(0);
    expect(await value("play", "count", { filterBy: { country: ["FR"] } })).toBe(1);
    expect(await value("play", "count", { filterBy: { country: ["FR", "DE"], browser: ["chrome"], continent: ["EU"] } })).toBe(2);
    expect(await value("play", "count", { filterBy: { referrer: [REFERRER] } })).toBe(1);
    expect(await value("play", "count", { filterBy: { mediaId: ["vi0000000000000000000000"] } })).toBe(0);
    expect(await value("play", "total", { filterBy: { mediaType: "video" } })).toBe(2);
    const from = new Date(Date.now() - 3_600_000);
    const to = new Date(Date.now() + 60_000);
    const withHeaders = await client.analytics.getAggregatedMetricsWithResponseHeaders({ metric: "play", aggregation: "count", from, to });
    expect(withHeaders.body.data).toBe(2);
    expect(withHeaders.body.context.timeframe?.from?.getTime()).toBe(Math.floor(from.getTime() / 1000) * 1000);
    expect(withHeaders.headers["x-ratelimit-limit"]).toBeDefined();
  });

  test("breakdowns through getMetricsBreakdown", async () => {
    const breakdown = async (metric: string, by: string, extra: Record<string, unknown> = {}) =>
      (await client.analytics.getMetricsBreakdown({ metric: metric as "play", breakdown: by as "country", ...extra })).data.map((d) => [d.dimensionValue, d.metricValue]);
    expect(await breakdown("play", "country", { sortBy: "dimensionValue", sortOrder: "asc" })).toEqual([["DE", 1], ["FR", 1]]);
    expect(await breakdown("impression", "continent")).toEqual([["EU", 2]]);
    expect(await breakdown("play", "browser")).toEqual([["chrome", 2]]);
    expect(await breakdown("play", "device-type")).toEqual([["computer", 2]]);
    expect(await breakdown("play", "operating-system")).toEqual([["linux", 2]]);
    expect(await breakdown("play", "media-type")).toEqual([["video", 2]]);
    expect(await breakdown("play-total", "media-id")).toEqual([[videoId, 2]]);
    expect(await breakdown("play-rate", "media-id")).toEqual([[videoId, 1]]);
    expect(await breakdown("end", "referrer")).toEqual([[REFERRER, 1]]);
    expect(await breakdown("view", "country", { viewDuration: "3s" })).toEqual([["FR", 1]]);
    expect(await breakdown("ccv-peak", "media-id")).toEqual([[videoId, 1]]);
    const res = await client.analytics.getMetricsBreakdownWithResponseHeaders({ metric: "play", breakdown: "country", pageSize: 1, currentPage: 2, sortBy: "dimensionValue", sortOrder: "asc" });
    expect(res.body.data.map((d) => d.dimensionValue)).toEqual(["FR"]);
    expect(res.body.pagination).toMatchObject({ currentPage: 2, pageSize: 1, pagesTotal: 2, itemsTotal: 2, currentPageItems: 1 });
    expect(res.body.context).toMatchObject({ metric: "play", breakdown: "country" });
    expect(res.headers["x-ratelimit-remaining"]).toBeDefined();
  });

  test("time series through getMetricsOverTime", async () => {
    const res = await client.analytics.getMetricsOverTime({ metric: "play" });
    expect(res.context.interval).toBe("hour");
    expect(res.data.reduce((n, d) => n + (d.metricValue ?? 0), 0)).toBe(2);
    expect(res.data[0].emittedAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:00:00\+00:00$/);
    const minutes = await client.analytics.getMetricsOverTimeWithResponseHeaders({
      metric: "impression", interval: "minute", from: new Date(Date.now() - 30 * 60_000), to: new Date(Date.now() + 60_000), filterBy: { country: ["FR"] },
    });
    expect(minutes.body.data.reduce((n, d) => n + (d.metricValue ?? 0), 0)).toBe(1);
    expect(minutes.body.context.interval).toBe("minute");
    expect(minutes.headers["x-ratelimit-limit"]).toBeDefined();
    const views = await client.analytics.getMetricsOverTime({ metric: "view", viewDuration: "3s", interval: "day" });
    expect(views.data.map((d) => d.metricValue)).toEqual([1]);
  });

  test.each([
    [{ metric: "plays", aggregation: "count" }, 404, "unrecognized-request-url", undefined],
    [{ metric: "play", aggregation: "sum" }, 400, "invalid-attribute", "aggregation"],
    [{ metric: "view", aggregation: "count", viewDuration: "7s" }, 400, "request-invalid-query-parameter", "viewDuration"],
    [{ metric: "play", aggregation: "count", filterBy: { referrer: ["x".repeat(2049)] } }, 400, "request-invalid-query-parameter", "filterBy[referrer]"],
    [{ metric: "play", aggregation: "count", from: new Date(Date.now() - 40 * 86_400_000) }, 400, "request-invalid-query-parameter", "from"],
  ])("getAggregatedMetrics(%o) fails with %d %s", async (args, status, kind, name) => {
    const err = await fail(client.analytics.getAggregatedMetrics(args as never));
    expect(err.problemDetails).toMatchObject({ status, type: `https://docs.api.video/reference/${kind}` });
    if (name) expect(err.problemDetails.name).toBe(name);
  });

  test("time-series errors: a bad interval, minute over an hour, an unknown metric", async () => {
    const interval = await fail(client.analytics.getMetricsOverTime({ metric: "play", interval: "week" as "day" }));
    expect(interval.problemDetails).toMatchObject({ status: 400, name: "interval", detail: 'This interval is invalid. Use one of "minute", "hour", "day".' });
    const span = await fail(client.analytics.getMetricsOverTime({ metric: "play", interval: "minute" }));
    expect(span.problemDetails).toMatchObject({ status: 400, name: "interval", detail: "This interval cannot be used with a timeframe over 60 minutes." });
    expect((await fail(client.analytics.getMetricsOverTime({ metric: "play-total" as "play" }))).problemDetails.status).toBe(404);
    expect((await fail(client.analytics.getMetricsBreakdown({ metric: "play", breakdown: "city" as "country" }))).problemDetails.status).toBe(404);
  });

  test("another project and the sandbox see none of these events", async () => {
    const other = await app.newProject("Other");
    const otherClient = new ApiVideoClient({ apiKey: other.productionKey, baseUri: app.urls.production });
    expect((await otherClient.analytics.getAggregatedMetrics({ metric: "play", aggregation: "total" })).data).toBe(0);
    const sandbox = new ApiVideoClient({ apiKey: project.sandboxKey, baseUri: app.urls.sandbox });
    expect((await sandbox.analytics.getAggregatedMetrics({ metric: "impression", aggregation: "count" })).data).toBe(0);
  });

  test("the live player page carries the reporter, and a live stream's report counts as live-stream", async () => {
    const live = await client.liveStreams.create({ name: "Analytics live" });
    const html = await (await fetch(`${app.urls.production}/live/${live.liveStreamId}`)).text();
    expect(html).toContain(`${app.urls.production}/analytics/events`);
    expect(html).toMatch(/connect-src [^;]*http:\/\/127\.0\.0\.1/);
    const res = await fetch(`${app.urls.production}/analytics/events`, {
      method: "POST", headers: { "content-type": "text/plain", "user-agent": "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1" },
      body: JSON.stringify({ mediaId: live.liveStreamId, sessionId: "live-session-000000", events: [{ type: "impression" }] }),
    });
    expect(res.status).toBe(204);
    const types = await client.analytics.getMetricsBreakdown({ metric: "impression", breakdown: "media-type", sortBy: "dimensionValue", sortOrder: "asc" });
    expect(types.data.map((d) => [d.dimensionValue, d.metricValue])).toEqual([["live-stream", 1], ["video", 2]]);
    const devices = await client.analytics.getMetricsBreakdown({ metric: "impression", breakdown: "device-type", filterBy: { mediaId: [live.liveStreamId] } });
    expect(devices.data).toEqual([{ dimensionValue: "phone", metricValue: 1 }] as never);
  });

  test("the collection endpoint refuses foreign media, bad bodies, big bodies and floods", async () => {
    const post = (body: string, base = app.urls.production, headers: Record<string, string> = {}) =>
      fetch(`${base}/analytics/events`, { method: "POST", headers: { "content-type": "text/plain", ...headers }, body });
    const report = (mediaId: string) => JSON.stringify({ mediaId, sessionId: "refusal-session-0000", events: [{ type: "impression" }] });
    expect((await post(report(videoId), app.urls.sandbox)).status).toBe(404); // a production video on the sandbox listener
    expect((await post(report("vi0000000000000000000000"))).status).toBe(404);
    expect((await post("not json")).status).toBe(400);
    expect((await post(JSON.stringify({ mediaId: videoId, sessionId: "refusal-session-0000", events: [{ type: "pause" }] }))).status).toBe(400);
    expect((await post("x".repeat(9000))).status).toBe(413);
    const flood = { "x-forwarded-for": "203.0.113.9" };
    const statuses: number[] = [];
    for (let i = 0; i < 201; i++) statuses.push((await post(report("vi0000000000000000000000"), app.urls.production, flood)).status);
    expect(statuses.slice(0, 200).every((s) => s === 404)).toBe(true);
    expect(statuses[200]).toBe(429);
    expect(events("impression").length).toBe(2);
  });
});
