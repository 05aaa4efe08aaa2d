// The /data aggregations in SQL over a seeded SQLite file, with an injected clock: every metric,
// aggregation, breakdown, interval and filter, the errors, and the retention purge.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../../test/helpers";
import type { ScopeCtx } from "../context";
import { openDatabase, type Database_ } from "../db/client";
import { migrate } from "../db/migrate";
import { analyticsEvents, analyticsPlayTotals, projects, videos } from "../db/schema";
import { ApiError } from "../http/errors";
import { purgeAnalytics } from "./purge";
import { aggregatedMetric, metricsBreakdown, metricsOverTime } from "./service";

const T = Date.parse("2026-11-21T12:10:00Z");
const MIN = 60_000;
const now = { ms: T };
const clock = { now: () => new Date(now.ms) };
const A = "viAAAAAAAAAAAAAAAAAAAAAA";
const B = "viBBBBBBBBBBBBBBBBBBBBBB";
const L = "liLLLLLLLLLLLLLLLLLLLLLL";
const P = "project_analytics0000000000";

const FRWIN = { country: "FR", continent: "EU", deviceType: "computer", operatingSystem: "windows", browser: "chrome", viewer: "v1", referrer: "https://blog.example/post" };
const USMAC = { country: "US", continent: "NA", deviceType: "computer", operatingSystem: "mac osx", browser: "firefox", viewer: "v2", referrer: "" };
const FRAND = { country: "FR", continent: "EU", deviceType: "phone", operatingSystem: "android", browser: "chrome", viewer: "v3", referrer: "" };

let dir: string;
let database: Database_;
let ctx: ScopeCtx;

/** One session's events: [type, ms after `at`, seconds watched]. */
function session(id: string, mediaId: string, dims: typeof FRWIN, at: number, events: [string, number, number?][], environment: "production" | "sandbox" = "production") {
  database.db.insert(analyticsEvents).values(events.map(([type, offset, watch]) => ({
    projectId: P, environment, sessionId: id, mediaId, mediaType: mediaId.startsWith("li") ? "live-stream" as const : "video" as const,
    type, emittedAt: at + offset, watchTime: watch ?? 0, ...dims,
  }))).run();
}

beforeAll(() => {
  dir = tempDir("vidhost-analytics-");
  database = openDatabase(join(dir, "vidhost.db"));
  migrate(database.sqlite);
  const db = database.db;
  db.insert(projects).values({ id: P, name: "Analytics", createdAt: "2026-11-01T00:00:00+00:00" }).run();
  for (const [id, tags] of [[A, "[]"], [B, '["news"]']]) {
    db.insert(videos).values({ id, projectId: P, environment: "production", title: id, tags, createdAt: "2026-11-01T00:00:00+00:00", updatedAt: "2026-11-01T00:00:00+00:00" } as typeof videos.$inferInsert).run();
  }
  session("s1", A, FRWIN, T - 60 * MIN, [["impression", 0], ["play", 1000], ["start", 1500], ["heartbeat", 11_500, 10], ["heartbeat", 21_500, 10], ["end", 25_500, 4]]);
  session("s2", A, USMAC, T - 30 * MIN, [["impression", 0], ["play", 500], ["start", 1000], ["heartbeat", 11_000, 10], ["heartbeat", 21_000, 10]]);
  session("s3", B, FRAND, T - 10 * MIN, [["impression", 0]]);
  session("s4", A, FRWIN, T - 30 * MIN, [["impression", 2000], ["play", 2500], ["start", 3000], ["heartbeat", 13_000, 10], ["heartbeat", 23_000, 10]]);
  session("s5", A, FRWIN, T - 30 * MIN, [["impression", 3000], ["play", 3500], ["start", 4000], ["heartbeat", 14_000, 10]]);
  session("s8", L, USMAC, T - 12_000, [["impression", 0], ["play", 1000], ["start", 2000], ["heartbeat", 10_000, 8]]);
  session("s6", A, FRWIN, T - 40 * 24 * 60 * MIN, [["play", 0]]);
  session("s7", A, FRWIN, T - 5 * MIN, [["impression", 0]], "sandbox");
  db.insert(analyticsPlayTotals).values({ projectId: P, environment: "production", mediaId: A, mediaType: "video", plays: 5 }).run();
  ctx = { db, clock, projectId: P, environment: "production" } as unknown as ScopeCtx;
});

afterAll(() => {
  database.sqlite.close();
  rmSync(dir, { recursive: true, force: true });
});

const url = (path: string, query = "") => `http://localhost/data/${path}${query ? `?${query}` : ""}`;
const metric = (m: string, a: string, query = "", c: ScopeCtx = ctx) => aggregatedMetric(c, { url: url(`metrics/${m}/${a}`, query), metric: m, aggregation: a }).data;
const atom = (ms: number) => new Date(ms).toISOString().slice(0, 19) + "Z";

describe("aggregated metrics over the default day", () => {
  test.each([
    ["impression", "count", "", 6],
    ["play", "count", "", 5],
    ["play", "rate", "", 0.833],
    ["play", "total", "", 11], // 5 in the window, 1 forty days old, 5 rolled up
    ["play", "total", "filterBy[mediaId][0]=" + L, 1],
    ["play", "total", "filterBy[mediaType]=video", 10],
    ["play", "total", "filterBy[mediaType]=live-stream", 1],
    ["play", "total", `from=2020-01-01T00:00:00Z&to=${atom(T - 3 * 24 * 60 * MIN)}`, 11], // from and to are ignored
    ["start", "count", "", 5],
    ["end", "count", "", 1],
    ["watch-time", "sum", "", 82],
    ["watch-time", "average", "", 16.4],
    ["impression-time", "sum", "", 6500],
    ["impression-time", "average", "", 1300],
    ["view", "count", "", 5],
    ["view", "count", "viewDuration=3s", 5],
    ["view", "count", "viewDuration=10s", 4],
    ["view", "count", "viewDuration=30s", 0],
    ["view", "count", "unique=true", 2],
    ["ccv", "peak", "", 3],
    ["ccv", "peak", "unique=true", 2],
    ["ccv", "live", "", 1],
    ["impression", "count", "filterBy[tag]=news", 1],
    ["impression", "count", "filterBy[continent][0]=EU", 4],
    ["impression", "count", "filterBy[continent][0]=AZ", 0],
    ["impression", "count", "filterBy[country][0]=FR&filterBy[country][1]=US", 6],
    ["impression", "count", "filterBy[deviceType][0]=phone", 1],
    ["impression", "count", "filterBy[operatingSystem][0]=mac%20osx", 2],
    ["impression", "count", "filterBy[browser][]=chrome", 4],
    ["impression", "count", "filterBy[referrer][0]=", 3],
    ["impression", "count", "filterBy[referrer][0]=" + encodeURIComponent(encodeURIComponent("https://blog.example/post")), 3],
    ["impression", "count", "filterBy[mediaId][0]=" + A, 4],
  ])("%s/%s %s → %d", (m, a, query, expected) => {
    expect(metric(m, a, query)).toBe(expected);
  });

  test("from/to bound the window (to exclusive) and are echoed", () => {
    const query = `from=${atom(T - 31 * MIN)}&to=${atom(T - 30 * MIN + 2000)}`;
    const res = aggregatedMetric(ctx, { url: url("metrics/impression/count", query), metric: "impression", aggregation: "count" });
    expect(res).toEqual({ context: { metric: "impression", aggregation: "count", timeframe: { from: "2026-11-21T11:39:00+00:00", to: "2026-11-21T11:40:02+00:00" } }, data: 1 });
    // ccv peak in 11:40:05–11:40:12 still sees s2, s4 and s5 open.
    expect(metric("ccv", "peak", `from=${atom(T - 30 * MIN + 5000)}&to=${atom(T - 30 * MIN + 12_000)}`)).toBe(3);
    expect(metric("ccv", "peak", `from=${atom(T - 30 * MIN + 22_000)}&to=${atom(T - 30 * MIN + 40_000)}`)).toBe(1);
  });

  test("the context names unique and view-duration variants", () => {
    const ctxOf = (m: string, a: string, query: string) => aggregatedMetric(ctx, { url: url(`metrics/${m}/${a}`, query), metric: m, aggregation: a }).context.metric;
    expect(ctxOf("view", "count", "")).toBe("view-5");
    expect(ctxOf("view", "count", "unique=true&viewDuration=10s")).toBe("unique-view-10");
    expect(ctxOf("ccv", "peak", "unique=true")).toBe("unique-ccv");
  });

  test("another environment sees only its own events", () => {
    expect(metric("impression", "count", "", { ...ctx, environment: "sandbox" } as ScopeCtx)).toBe(1);
  });
});

describe("breakdowns", () => {
  const buckets = (m: string, b: string, query = "") => metricsBreakdown(ctx, { url: url(`buckets/${m}/${b}`, query), metric: m, breakdown: b });

  test("play by country, by metric value descending (the default)", () => {
    expect(buckets("play", "country").data).toEqual([{ dimensionValue: "FR", metricValue: 3 }, { dimensionValue: "US", metricValue: 2 }]);
    expect(buckets("play", "country", "sortBy=dimensionValue&sortOrder=desc").data.map((d) => d.dimensionValue)).toEqual(["US", "FR"]);
  });

  test.each([
    ["impression", "media-id", [[A, 4], [B, 1], [L, 1]]],
    ["impression", "media-type", [["video", 5], ["live-stream", 1]]],
    ["impression", "continent", [["EU", 4], ["NA", 2]]],
    ["impression", "device-type", [["computer", 5], ["phone", 1]]],
    ["impression", "operating-system", [["windows", 3], ["mac osx", 2], ["android", 1]]],
    ["impression", "browser", [["chrome", 4], ["firefox", 2]]],
    ["impression", "referrer", [["", 3], ["https://blog.example/post", 3]]],
    ["play-rate", "media-id", [[L, 1], [A, 1], [B, 0]]],
    ["play-total", "media-id", [[A, 10], [L, 1]]],
    ["start", "country", [["FR", 3], ["US", 2]]],
    ["end", "country", [["FR", 1]]],
    ["view", "country", [["FR", 3], ["US", 2]]],
    ["ccv-peak", "country", [["FR", 2], ["US", 1]]],
  ] as [string, string, [string, number][]][])("%s by %s", (m, b, expected) => {
    const res = buckets(m, b, m === "play-rate" ? "sortBy=metricValue&sortOrder=desc" : "");
    const got = res.data.map((d) => [d.dimensionValue, d.metricValue]);
    // Ties are ordered by dimension value; compare as sets where the metric values tie.
    expect(got.sort()).toEqual([...expected].sort());
  });

  test("ccv-average per country over a two-minute window", () => {
    const res = buckets("ccv-average", "country", `from=${atom(T - 31 * MIN)}&to=${atom(T - 29 * MIN)}&sortBy=dimensionValue&sortOrder=asc`);
    expect(res.data).toEqual([{ dimensionValue: "FR", metricValue: 0.25 }, { dimensionValue: "US", metricValue: 0.167 }]);
    expect(res.context).toEqual({ metric: "ccv-average", breakdown: "country", timeframe: { from: "2026-11-21T11:39:00+00:00", to: "2026-11-21T11:41:00+00:00" } });
  });

  test("pagination counts every dimension value and keeps the filters in its links", () => {
    const res = buckets("impression", "media-id", "pageSize=2&filterBy[country][0]=FR&filterBy[country][1]=US");
    expect(res.data.length).toBe(2);
    expect(res.pagination).toMatchObject({ currentPage: 1, pageSize: 2, pagesTotal: 2, itemsTotal: 3, currentPageItems: 2 });
    const next = res.pagination.links.find((l) => l.rel === "next")!.uri;
    expect(next).toContain("filterBy%5Bcountry%5D%5B0%5D=FR");
    expect(buckets("impression", "media-id", "pageSize=2&currentPage=2").data.length).toBe(1);
  });
});

describe("time series", () => {
  const series = (m: string, query = "") => metricsOverTime(ctx, { url: url(`timeseries/${m}`, query), metric: m });

  test("plays per hour (the default for a day), sparse, oldest first", () => {
    const res = series("play");
    expect(res.context.interval).toBe("hour");
    expect(res.data).toEqual([{ emittedAt: "2026-11-21T11:00:00+00:00", metricValue: 4 }, { emittedAt: "2026-11-21T12:00:00+00:00", metricValue: 1 }]);
    expect(series("play", "sortBy=metricValue").data[0].metricValue).toBe(4);
    expect(series("play", "sortBy=emittedAt&sortOrder=desc").data[0].emittedAt).toBe("2026-11-21T12:00:00+00:00");
  });

  test("day interval for spans over two days, minute for short ones", () => {
    const week = series("impression", `from=${atom(T - 7 * 24 * 60 * MIN)}`);
    expect(week.context.interval).toBe("day");
    expect(week.data).toEqual([{ emittedAt: "2026-11-21T00:00:00+00:00", metricValue: 6 }]);
    const minutes = series("ccv-peak", `from=${atom(T - 35 * MIN)}&to=${atom(T - 25 * MIN)}&interval=minute`);
    expect(minutes.data).toEqual([{ emittedAt: "2026-11-21T11:40:00+00:00", metricValue: 3 }]);
    const avg = series("ccv-average", `from=${atom(T - 35 * MIN)}&to=${atom(T - 25 * MIN)}&interval=minute&unique=true`);
    // v2 watched 20 s and v1 (s4 and s5 merged) 20 s of the 60-second bucket.
    expect(avg.data).toEqual([{ emittedAt: "2026-11-21T11:40:00+00:00", metricValue: 0.667 }]);
    expect(avg.context.metric).toBe("unique-ccv-average");
    expect(series("view", "interval=hour&viewDuration=10s").data).toEqual([{ emittedAt: "2026-11-21T11:00:00+00:00", metricValue: 4 }]);
    expect(series("play-rate").data).toEqual([{ emittedAt: "2026-11-21T11:00:00+00:00", metricValue: 1 }, { emittedAt: "2026-11-21T12:00:00+00:00", metricValue: 0.5 }]);
  });
});

describe("errors", () => {
  const fails = (fn: () => unknown): ApiError => {
    try {
      fn();
    } catch (e) {
      return e as ApiError;
    }
    throw new Error("expected an error");
  };
  test.each([
    ["metrics/plays/count", 404, "unrecognized-request-url", ""],
    ["metrics/play/median", 404, "unrecognized-request-url", ""],
    // Names of Object.prototype's members are not metrics, breakdowns or intervals either.
    ["metrics/constructor/count", 404, "unrecognized-request-url", ""],
    ["metrics/toString/count", 404, "unrecognized-request-url", ""],
    ["buckets/play/constructor", 404, "unrecognized-request-url", ""],
    ["buckets/play/__proto__", 404, "unrecognized-request-url", ""],
    ["timeseries/play?interval=constructor", 400, "request-invalid-query-parameter", "interval"],
    ["metrics/play/sum", 400, "invalid-attribute", "aggregation"],
    ["metrics/view/count?viewDuration=7s", 400, "request-invalid-query-parameter", "viewDuration"],
    ["metrics/play/count?viewDuration=5s", 400, "request-invalid-query-parameter", "viewDuration"],
    ["metrics/play/count?unique=true", 400, "request-invalid-query-parameter", "unique"],
    ["metrics/ccv/peak?unique=yes", 400, "request-invalid-query-parameter", "unique"],
    [`metrics/play/count?filterBy[referrer][0]=${"a".repeat(2049)}`, 400, "request-invalid-query-parameter", "filterBy[referrer]"],
    ["metrics/play/count?filterBy[mediaType]=video", 400, "request-invalid-query-parameter", "filterBy[mediaType]"],
    ["metrics/play/total?filterBy[country][0]=FR", 400, "request-invalid-query-parameter", "filterBy[country]"],
    ["metrics/play/count?filterBy[continent][0]=XX", 400, "request-invalid-query-parameter", "filterBy[continent]"],
    ["metrics/play/count?filterBy[colour][0]=red", 400, "request-invalid-query-parameter", "filterBy[colour]"],
    ["metrics/play/count?filterBy[tag][0]=a&filterBy[tag][1]=b", 400, "request-invalid-query-parameter", "filterBy[tag]"],
    ["metrics/play/count?from=yesterday", 400, "request-invalid-query-parameter", "from"],
    [`metrics/play/count?from=${atom(T - 31 * 24 * 60 * MIN)}`, 400, "request-invalid-query-parameter", "from"],
    [`metrics/play/count?from=${atom(T)}&to=${atom(T - MIN)}`, 400, "request-invalid-query-parameter", "from"],
    ["metrics/play/count?sortBy=metricValue", 400, "request-invalid-query-parameter", "sortBy"],
    ["buckets/play/city", 404, "unrecognized-request-url", ""],
    ["buckets/play-total/country", 400, "invalid-attribute", "breakdown"],
    ["buckets/play/country?sortBy=emittedAt", 400, "request-invalid-query-parameter", "sortBy"],
    ["buckets/play/country?pageSize=101", 400, "invalid-attribute", "pageSize"],
    ["timeseries/play-total", 404, "unrecognized-request-url", ""],
    ["timeseries/play?interval=week", 400, "request-invalid-query-parameter", "interval"],
    ["timeseries/play?interval=minute", 400, "request-invalid-query-parameter", "interval"],
  ])("%s → %d %s", (path, status, kind, name) => {
    const [p, query = ""] = path.split("?");
    const parts = p.split("/");
    const u = url(p, query);
    const err = fails(() => parts[0] === "metrics" ? aggregatedMetric(ctx, { url: u, metric: parts[1], aggregation: parts[2] })
      : parts[0] === "buckets" ? metricsBreakdown(ctx, { url: u, metric: parts[1], breakdown: parts[2] })
      : metricsOverTime(ctx, { url: u, metric: parts[1] }));
    expect(err).toBeInstanceOf(ApiError);
    expect([err.status, err.kind, err.fields.name ?? ""]).toEqual([status, kind, name]);
    if (status === 400) expect(err.fields.detail?.length).toBeGreaterThan(10);
  });
});

describe("retention", () => {
  test("production keeps 30 days and sandbox 24 hours; purged plays still count in play/total", () => {
    expect(purgeAnalytics({ db: database.db, clock } as unknown as ScopeCtx)).toBe(1); // s6, forty days old
    expect(metric("play", "total")).toBe(11);
    expect(metric("play", "total", "filterBy[mediaId][]=" + A)).toBe(10);
    now.ms = T + 2 * 24 * 60 * MIN;
    try {
      expect(purgeAnalytics({ db: database.db, clock } as unknown as ScopeCtx)).toBe(1); // s7, the sandbox impression
      expect(metric("play", "total")).toBe(11);
      expect(metric("play", "count", `from=${atom(T - 2 * 60 * MIN)}&to=${atom(T)}`)).toBe(5);
    } finally {
      now.ms = T;
    }
  });
});
