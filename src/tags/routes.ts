import { Elysia, t } from "elysia";
import { pageQuery, paginationSchema, parsePage } from "../http/pagination";
import { apiErrors } from "../http/schemas";
import type { ScopePlugin } from "../http/scope";
import { listTags } from "./service";

/** Main API /tags. */
export function tagRoutes(scoped: ScopePlugin) {
  return new Elysia({ prefix: "/tags", normalize: false })
    .use(scoped)
    .get("", ({ scope, query, request }) => listTags(scope, {
      url: request.url, page: parsePage(query), value: query.value, sortBy: query.sortBy ?? "value", sortOrder: query.sortOrder ?? "asc",
    }), {
      query: t.Object({
        value: t.Optional(t.String()),
        sortBy: t.Optional(t.Union([t.Literal("value"), t.Literal("videoCount")])),
        sortOrder: t.Optional(t.Union([t.Literal("asc"), t.Literal("desc")])),
        ...pageQuery,
      }, { additionalProperties: false }),
      response: { 200: t.Object({ data: t.Array(t.Object({ value: t.String(), videoCount: t.Number() })), pagination: paginationSchema }), ...apiErrors },
      detail: { summary: "List tags with their video counts", tags: ["Videos"] },
    });
}
