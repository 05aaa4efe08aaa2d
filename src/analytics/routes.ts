import { Elysia, t } from "elysia";
import { pageQuery, paginationSchema } from "../http/pagination";
import { apiErrors } from "../http/schemas";
import type { ScopePlugin } from "../http/scope";
import { aggregatedMetric, metricsBreakdown, metricsOverTime } from "./service";

// The query is read from the URL by query.ts (filterBy[key][n] keys, exact error names); these
// schemas document the plain parameters and let the filterBy keys through.
const timeQuery = {
  from: t.Optional(t.String({ description: "ATOM date-time; default: one day before `to`; at most 30 days ago" })),
  to: t.Optional(t.String({ description: "ATOM date-time, exclusive; default: now" })),
  unique: t.Optional(t.String({ description: "true: count viewers (address + User-Agent, per day) instead of sessions; ccv and view only" })),
  viewDuration: t.Optional(t.String({ description: "3s, 5s (default), 10s or 30s; view only" })),
};
const listQuery = { sortOrder: t.Optional(t.String()), ...pageQuery };
const timeframe = t.Object({ from: t.String(), to: t.String() });
const tags = ["Analytics"];

/** Main API /data: aggregated metrics, breakdowns and time series over the player events. */
export function analyticsRoutes(scoped: ScopePlugin) {
  return new Elysia({ prefix: "/data", normalize: false })
    .use(scoped)
    .get("/metrics/:metric/:aggregation", ({ scope, params, request }) => aggregatedMetric(scope, { url: request.url, ...params }), {
      params: t.Object({ metric: t.String(), aggregation: t.String() }),
      query: t.Object(timeQuery, { additionalProperties: true }),
      response: {
        200: t.Object({ context: t.Object({ metric: t.String(), aggregation: t.String(), timeframe }), data: t.Number() }),
        ...apiErrors,
      },
      detail: { summary: "Retrieve aggregated metrics", tags },
    })
    .get("/buckets/:metric/:breakdown", ({ scope, params, request }) => metricsBreakdown(scope, { url: request.url, ...params }), {
      params: t.Object({ metric: t.String(), breakdown: t.String() }),
      query: t.Object({ ...timeQuery, sortBy: t.Optional(t.String({ description: "metricValue (default) or dimensionValue" })), ...listQuery }, { additionalProperties: true }),
      response: {
        200: t.Object({
          context: t.Object({ metric: t.String(), breakdown: t.String(), timeframe }),
          data: t.Array(t.Object({ dimensionValue: t.String(), metricValue: t.Number() })),
          pagination: paginationSchema,
        }),
        ...apiErrors,
      },
      detail: { summary: "Retrieve metrics in a breakdown of dimensions", tags },
    })
    .get("/timeseries/:metric", ({ scope, params, request }) => metricsOverTime(scope, { url: request.url, ...params }), {
      params: t.Object({ metric: t.String() }),
      query: t.Object({
        ...timeQuery,
        interval: t.Optional(t.String({ description: "minute (timeframes up to 60 minutes), hour or day; default hour up to 2 days, else day" })),
        sortBy: t.Optional(t.String({ description: "emittedAt (default) or metricValue" })),
        ...listQuery,
      }, { additionalProperties: true }),
      response: {
        200: t.Object({
          context: t.Object({ metric: t.String(), interval: t.String(), timeframe }),
          data: t.Array(t.Object({ emittedAt: t.String(), metricValue: t.Number() })),
          pagination: paginationSchema,
        }),
        ...apiErrors,
      },
      detail: { summary: "Retrieve metrics over time", tags },
    });
}
