import { Elysia, t } from "elysia";
import { streamedBody } from "../http/app";
import { pageQuery, paginationSchema, parsePage } from "../http/pagination";
import { apiErrors } from "../http/schemas";
import type { ScopePlugin } from "../http/scope";
import { wholeFileUpload } from "../uploads/receive";
import { deleteChapters, getChapters, listChapters, uploadChapters } from "./service";

const chapterSchema = t.Object({ uri: t.String(), src: t.String(), language: t.String() });
const params = t.Object({ videoId: t.String(), language: t.String() });

/** Main API /videos/{videoId}/chapters. */
export function chapterRoutes(scoped: ScopePlugin) {
  return new Elysia({ prefix: "/videos", normalize: false })
    .use(scoped)
    .use(streamedBody())
    .get("/:videoId/chapters", ({ scope, params, query, request }) => listChapters(scope, params.videoId, { url: request.url, page: parsePage(query) }), {
      params: t.Object({ videoId: t.String() }),
      query: t.Object({ ...pageQuery }, { additionalProperties: false }),
      response: { 200: t.Object({ data: t.Array(chapterSchema), pagination: paginationSchema }), ...apiErrors },
      detail: { summary: "List a video's chapter files", tags: ["Chapters"] },
    })
    .post("/:videoId/chapters/:language", ({ scope, params, request }) => uploadChapters(scope, params.videoId, params.language, wholeFileUpload(request)), {
      parse: "stream", params, response: { 200: chapterSchema, ...apiErrors },
      detail: { summary: "Upload a WebVTT chapter file (multipart, any field name) for a language", tags: ["Chapters"] },
    })
    .get("/:videoId/chapters/:language", ({ scope, params }) => getChapters(scope, params.videoId, params.language), {
      params, response: { 200: chapterSchema, ...apiErrors }, detail: { summary: "Get a chapter file", tags: ["Chapters"] },
    })
    .delete("/:videoId/chapters/:language", async ({ scope, params, set }) => {
      await deleteChapters(scope, params.videoId, params.language);
      set.status = 204;
    }, { params, response: { 204: t.Void(), ...apiErrors }, detail: { summary: "Delete a chapter file", tags: ["Chapters"] } });
}
