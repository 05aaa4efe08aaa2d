import { Elysia, t } from "elysia";
import { pageQuery, paginationSchema, parsePage } from "../http/pagination";
import { apiErrors, errorBody } from "../http/schemas";
import type { ScopePlugin } from "../http/scope";
import { createSummary, deleteSummary, deleteSummarySource, getSummarySource, listSummaries, updateSummarySource } from "./service";

const summarySchema = t.Object({
  summaryId: t.String(),
  createdAt: t.String(),
  updatedAt: t.String(),
  videoId: t.String(),
  origin: t.Union([t.Literal("auto"), t.Literal("api")]),
  sourceStatus: t.Union([t.Literal("missing"), t.Literal("waiting"), t.Literal("failed"), t.Literal("completed"), t.Literal("unprocessable")]),
  failureReason: t.Nullable(t.String()),
});
const sourceSchema = t.Object({ abstract: t.Optional(t.String()), takeaways: t.Optional(t.Array(t.String())) });
const attribute = t.Union([t.Literal("abstract"), t.Literal("takeaways")]);
const params = t.Object({ summaryId: t.String() });
const errors = { ...apiErrors, 409: errorBody };

/** Main API /summaries. */
export function summaryRoutes(scoped: ScopePlugin) {
  return new Elysia({ prefix: "/summaries", normalize: false })
    .use(scoped)
    .post("", ({ scope, body, set }) => {
      set.status = 201;
      return createSummary(scope, body);
    }, {
      body: t.Object({
        videoId: t.String(),
        origin: t.Optional(t.Literal("auto")),
        attributes: t.Optional(t.Array(attribute, { minItems: 1, error: "This attribute must list abstract, takeaways or both." })),
      }, { additionalProperties: false }),
      response: { 201: summarySchema, ...errors },
      detail: { summary: "Create a video's summary (origin auto generates it; 409 while one is waiting or completed)", tags: ["Summaries"] },
    })
    .get("", ({ scope, query, request }) => {
      const { currentPage, pageSize, ...filters } = query;
      return listSummaries(scope, { url: request.url, page: parsePage({ currentPage, pageSize }), filters });
    }, {
      query: t.Object({
        videoId: t.Optional(t.String()),
        origin: t.Optional(t.Union([t.Literal("auto"), t.Literal("api")])),
        sourceStatus: t.Optional(summarySchema.properties.sourceStatus),
        sortBy: t.Optional(t.Union([t.Literal("createdAt"), t.Literal("updatedAt"), t.Literal("videoId")])),
        sortOrder: t.Optional(t.Union([t.Literal("asc"), t.Literal("desc")])),
        ...pageQuery,
      }, { additionalProperties: false }),
      response: { 200: t.Object({ data: t.Array(summarySchema), pagination: paginationSchema }), ...apiErrors },
      detail: { summary: "List summaries (videoId, origin, sourceStatus, sortBy, sortOrder)", tags: ["Summaries"] },
    })
    .delete("/:summaryId", ({ scope, params, set }) => {
      deleteSummary(scope, params.summaryId);
      set.status = 204;
    }, { params, response: { 204: t.Void(), ...apiErrors }, detail: { summary: "Delete a summary (a new one may then be generated)", tags: ["Summaries"] } })
    .get("/:summaryId/source", ({ scope, params }) => getSummarySource(scope, params.summaryId), {
      params, response: { 200: sourceSchema, ...apiErrors }, detail: { summary: "A summary's abstract and takeaways", tags: ["Summaries"] },
    })
    .patch("/:summaryId/source", ({ scope, params, body, set }) => {
      set.status = 201;
      return updateSummarySource(scope, params.summaryId, body ?? {});
    }, {
      params,
      body: t.Optional(t.Object({
        abstract: t.Optional(t.String()),
        takeaways: t.Optional(t.Array(t.String(), { maxItems: 3, error: "This attribute must be an array of at most 3 strings." })),
      }, { additionalProperties: false })),
      response: { 201: sourceSchema, ...errors },
      detail: { summary: "Write a summary's abstract and takeaways by hand (409 while it is being generated)", tags: ["Summaries"] },
    })
    .delete("/:summaryId/source", ({ scope, params, set }) => {
      deleteSummarySource(scope, params.summaryId);
      set.status = 204;
    }, { params, response: { 204: t.Void(), ...apiErrors }, detail: { summary: "Delete a summary's source (a new generation may then start)", tags: ["Summaries"] } });
}
