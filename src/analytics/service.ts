// The three `/data` operations: one aggregated value, a breakdown by dimension, values over time.
import type { SQL } from "drizzle-orm";
import { atom } from "../clock";
import type { ScopeCtx } from "../context";
import { invalidAttribute, unrecognizedUrl } from "../http/errors";
import { offsetOf, paginate, parsePage } from "../http/pagination";
import * as q from "./query";
import {
  concurrentViewers, countEvents, DIMENSIONS, impressionTime, pageOf, playRate, playTotals, total, views, watchTime,
  type Grouping, type Select,
} from "./sql";

/** Which aggregations each `/data/metrics` metric takes. */
const AGGREGATIONS: Record<string, string[]> = {
  play: ["count", "rate", "total"],
  start: ["count"],
  end: ["count"],
  impression: ["count"],
  "impression-time": ["average", "sum"],
  "watch-time": ["average", "sum"],
  ccv: ["peak", "live"],
  view: ["count"],
};
const ALL_AGGREGATIONS = ["count", "rate", "total", "average", "sum", "peak", "live"];
const GROUPED_METRICS = ["play", "play-rate", "play-total", "start", "end", "impression", "ccv-peak", "ccv-average", "view"];
/** ccv live looks at this last stretch of time. */
export const LIVE_WINDOW_MS = 20_000;

const round = (v: number) => Math.round(v * 1000) / 1000;
const timeframeOut = (tf: q.Timeframe) => ({ from: atom(new Date(tf.from)), to: atom(new Date(tf.to)) });

/** The metric name api.video echoes: view-5, unique-view-5, unique-ccv, unique-ccv-peak… */
function contextMetric(metric: string, unique: boolean, viewSeconds: number): string {
  const base = metric === "view" ? `view-${viewSeconds}` : metric;
  return unique ? `unique-${base}` : base;
}

const viewerMetric = (metric: string) => metric === "view" || metric.startsWith("ccv");

/** A breakdown or time-series metric as one grouped statement. */
function grouped(metric: string, s: Select, unique: boolean, viewSeconds: number): SQL {
  switch (metric) {
    case "play-rate": return playRate(s);
    case "ccv-peak": return concurrentViewers(s, "peak", unique);
    case "ccv-average": return concurrentViewers(s, "average", unique);
    case "view": return views(s, viewSeconds, unique);
    default: return countEvents(s, metric);
  }
}

/** GET /data/metrics/{metric}/{aggregation}: one number over the timeframe (play/total: ever). */
export function aggregatedMetric(ctx: ScopeCtx, input: { url: string; metric: string; aggregation: string }) {
  const { metric, aggregation } = input;
  if (!Object.hasOwn(AGGREGATIONS, metric) || !ALL_AGGREGATIONS.includes(aggregation)) throw unrecognizedUrl();
  if (!AGGREGATIONS[metric].includes(aggregation)) {
    throw invalidAttribute("aggregation", `The ${metric} metric takes the aggregations ${AGGREGATIONS[metric].join(", ")}.`);
  }
  const raw = q.readQuery(input.url, ["from", "to", "unique", "viewDuration"]);
  const now = ctx.clock.now().getTime();
  const playTotal = metric === "play" && aggregation === "total";
  // play/total counts every play ever: from and to are accepted and ignored (the default is echoed).
  let timeframe = playTotal ? { from: now - q.DAY_MS, to: now } : q.timeframe(raw, now);
  const unique = q.unique(raw, viewerMetric(metric));
  const viewSeconds = q.viewDuration(raw, metric === "view");
  const filters = q.filters(raw, playTotal);
  if (aggregation === "live") timeframe = { from: now - LIVE_WINDOW_MS, to: now + 1 };
  const s: Select = { scope: ctx, timeframe, filters, grouping: { by: "all" } };
  let statement: SQL;
  if (playTotal) statement = playTotals(ctx, filters, false);
  else if (aggregation === "rate") statement = playRate(s);
  else if (metric === "watch-time") statement = watchTime(s, aggregation as "sum" | "average");
  else if (metric === "impression-time") statement = impressionTime(s, aggregation as "sum" | "average");
  else if (metric === "ccv") statement = concurrentViewers(s, "peak", unique);
  else if (metric === "view") statement = views(s, viewSeconds, unique);
  else statement = countEvents(s, metric);
  return {
    context: { metric: contextMetric(metric, unique, viewSeconds), aggregation, timeframe: timeframeOut(timeframe) },
    data: round(total(ctx.db, statement)),
  };
}

/** GET /data/buckets/{metric}/{breakdown}: the metric per dimension value, sorted and paginated. */
export function metricsBreakdown(ctx: ScopeCtx, input: { url: string; metric: string; breakdown: string }) {
  const { metric, breakdown } = input;
  if (!GROUPED_METRICS.includes(metric) || !Object.hasOwn(DIMENSIONS, breakdown)) throw unrecognizedUrl();
  if (metric === "play-total" && breakdown !== "media-id") throw invalidAttribute("breakdown", "The play-total metric only takes the media-id breakdown.");
  const raw = q.readQuery(input.url, ["from", "to", "unique", "viewDuration", "sortBy", "sortOrder", "currentPage", "pageSize"]);
  const page = parsePage({ currentPage: q.single(raw, "currentPage"), pageSize: q.single(raw, "pageSize") });
  const now = ctx.clock.now().getTime();
  const timeframe = metric === "play-total" ? { from: now - q.DAY_MS, to: now } : q.timeframe(raw, now);
  const unique = q.unique(raw, viewerMetric(metric));
  const viewSeconds = q.viewDuration(raw, metric === "view");
  const order = q.sort(raw, ["metricValue", "dimensionValue"] as const);
  const filters = q.filters(raw, metric === "play-total");
  const grouping: Grouping = { by: "dimension", column: DIMENSIONS[breakdown as keyof typeof DIMENSIONS] };
  const statement = metric === "play-total" ? playTotals(ctx, filters, true) : grouped(metric, { scope: ctx, timeframe, filters, grouping }, unique, viewSeconds);
  const { rows, count } = pageOf(ctx.db, statement, { by: order.sortBy === "metricValue" ? "v" : "k", direction: order.sortOrder }, page.pageSize, offsetOf(page));
  const data = rows.map((r) => ({ dimensionValue: String(r.k), metricValue: round(r.v) }));
  return {
    context: { metric: contextMetric(metric, unique, viewSeconds), breakdown, timeframe: timeframeOut(timeframe) },
    ...paginate(input.url, page, count, data),
  };
}

/** GET /data/timeseries/{metric}: the metric per minute, hour or day (buckets without data are left out). */
export function metricsOverTime(ctx: ScopeCtx, input: { url: string; metric: string }) {
  const { metric } = input;
  if (!GROUPED_METRICS.includes(metric) || metric === "play-total") throw unrecognizedUrl();
  const raw = q.readQuery(input.url, ["from", "to", "interval", "unique", "viewDuration", "sortBy", "sortOrder", "currentPage", "pageSize"]);
  const page = parsePage({ currentPage: q.single(raw, "currentPage"), pageSize: q.single(raw, "pageSize") });
  const timeframe = q.timeframe(raw, ctx.clock.now().getTime());
  const interval = q.interval(raw, timeframe);
  const unique = q.unique(raw, viewerMetric(metric));
  const viewSeconds = q.viewDuration(raw, metric === "view");
  const order = q.sort(raw, ["emittedAt", "metricValue"] as const);
  const filters = q.filters(raw, false);
  const statement = grouped(metric, { scope: ctx, timeframe, filters, grouping: { by: "bucket", sizeMs: q.INTERVALS[interval] } }, unique, viewSeconds);
  const { rows, count } = pageOf(ctx.db, statement, { by: order.sortBy === "metricValue" ? "v" : "k", direction: order.sortOrder }, page.pageSize, offsetOf(page));
  const data = rows.map((r) => ({ emittedAt: atom(new Date(Number(r.k))), metricValue: round(r.v) }));
  return {
    context: { metric: contextMetric(metric, unique, viewSeconds), interval, timeframe: timeframeOut(timeframe) },
    ...paginate(input.url, page, count, data),
  };
}
