import { Elysia, t } from "elysia";
import { pageQuery, paginationSchema, parsePage } from "../http/pagination";
import { apiErrors } from "../http/schemas";
import type { ScopePlugin } from "../http/scope";
import { createUploadToken, deleteUploadToken, getUploadToken, listUploadTokens } from "./service";

const token = t.Object({ token: t.String(), ttl: t.Integer(), createdAt: t.String(), expiresAt: t.Optional(t.String()) });
const params = t.Object({ uploadToken: t.String() });

/** Main API /upload-tokens. */
export function uploadTokenRoutes(scoped: ScopePlugin) {
  return new Elysia({ prefix: "/upload-tokens", normalize: false })
    .use(scoped)
    .post("", ({ scope, body }) => createUploadToken(scope, body ?? {}), {
      body: t.Optional(t.Object({ ttl: t.Optional(t.Integer({ minimum: 0, maximum: 2147483647, error: "This attribute must be an integer from 0 to 2147483647." })) }, { additionalProperties: false })),
      response: { 200: token, ...apiErrors },
      detail: { summary: "Create an upload token (ttl in seconds, 0 = never expires)", tags: ["Upload tokens"] },
    })
    .get("", ({ scope, query, request }) => listUploadTokens(scope, {
      url: request.url, page: parsePage(query), sortBy: query.sortBy ?? "createdAt", sortOrder: query.sortOrder ?? "asc",
    }), {
      query: t.Object({
        sortBy: t.Optional(t.Union([t.Literal("createdAt"), t.Literal("ttl")])),
        sortOrder: t.Optional(t.Union([t.Literal("asc"), t.Literal("desc")])),
        ...pageQuery,
      }, { additionalProperties: false }),
      response: { 200: t.Object({ data: t.Array(token), pagination: paginationSchema }), ...apiErrors },
      detail: { summary: "List active upload tokens", tags: ["Upload tokens"] },
    })
    .get("/:uploadToken", ({ scope, params }) => getUploadToken(scope, params.uploadToken), {
      params, response: { 200: token, ...apiErrors }, detail: { summary: "Get an upload token", tags: ["Upload tokens"] },
    })
    .delete("/:uploadToken", ({ scope, params, set }) => {
      deleteUploadToken(scope, params.uploadToken);
      set.status = 204;
    }, { params, response: { 204: t.Void(), ...apiErrors }, detail: { summary: "Delete an upload token", tags: ["Upload tokens"] } });
}
