import { Elysia, t } from "elysia";
import { streamedBody } from "../http/app";
import { pageQuery, paginationSchema, parsePage } from "../http/pagination";
import { apiErrors } from "../http/schemas";
import type { ScopePlugin } from "../http/scope";
import { deleteWatermark, listWatermarks, uploadWatermark } from "./service";
import { wholeFileUpload } from "../uploads/receive";

const watermark = t.Object({ watermarkId: t.String(), createdAt: t.String() });

/** Main API /watermarks. */
export function watermarkRoutes(scoped: ScopePlugin) {
  return new Elysia({ prefix: "/watermarks", normalize: false })
    .use(scoped)
    .use(streamedBody())
    .post("", ({ scope, request }) => uploadWatermark(scope, wholeFileUpload(request)), {
      parse: "stream",
      response: { 200: watermark, ...apiErrors },
      detail: { summary: "Upload a watermark (one JPEG or PNG file, up to 10 MiB and 4096×4096)", tags: ["Watermarks"] },
    })
    .get("", ({ scope, query, request }) => listWatermarks(scope, { url: request.url, page: parsePage(query), sortOrder: query.sortOrder ?? "asc" }), {
      query: t.Object({
        sortBy: t.Optional(t.Literal("createdAt", { error: "This attribute must be createdAt." })),
        sortOrder: t.Optional(t.Union([t.Literal("asc"), t.Literal("desc")], { error: "This attribute must be asc or desc." })),
        ...pageQuery,
      }, { additionalProperties: false }),
      response: { 200: t.Object({ data: t.Array(watermark), pagination: paginationSchema }), ...apiErrors },
      detail: { summary: "List watermarks (sortBy=createdAt, sortOrder)", tags: ["Watermarks"] },
    })
    .delete("/:watermarkId", async ({ scope, params, set }) => {
      await deleteWatermark(scope, params.watermarkId);
      set.status = 204;
    }, {
      params: t.Object({ watermarkId: t.String() }),
      response: { 204: t.Void(), ...apiErrors },
      detail: { summary: "Delete a watermark (videos already given it keep it)", tags: ["Watermarks"] },
    });
}
