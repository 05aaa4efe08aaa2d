import { Elysia, t } from "elysia";
import { streamedBody } from "../http/app";
import { pageQuery, paginationSchema, parsePage } from "../http/pagination";
import { apiErrors } from "../http/schemas";
import type { ScopePlugin } from "../http/scope";
import { wholeFileUpload } from "../uploads/receive";
import { deleteCaption, getCaption, listCaptions, updateCaption, uploadCaption } from "./service";

export const captionSchema = t.Object({
  uri: t.String(),
  src: t.String(),
  srclang: t.String(),
  languageName: t.String(),
  default: t.Boolean(),
  generated: t.Boolean(),
});

const params = t.Object({ videoId: t.String(), language: t.String() });

/** Main API /videos/{videoId}/captions. */
export function captionRoutes(scoped: ScopePlugin) {
  return new Elysia({ prefix: "/videos", normalize: false })
    .use(scoped)
    .use(streamedBody())
    .get("/:videoId/captions", ({ scope, params, query, request }) => listCaptions(scope, params.videoId, { url: request.url, page: parsePage(query) }), {
      params: t.Object({ videoId: t.String() }),
      query: t.Object({ ...pageQuery }, { additionalProperties: false }),
      response: { 200: t.Object({ data: t.Array(captionSchema), pagination: paginationSchema }), ...apiErrors },
      detail: { summary: "List a video's captions", tags: ["Captions"] },
    })
    .post("/:videoId/captions/:language", ({ scope, params, request }) => uploadCaption(scope, params.videoId, params.language, wholeFileUpload(request)), {
      parse: "stream", params, response: { 200: captionSchema, ...apiErrors },
      detail: { summary: "Upload a WebVTT caption file (multipart, any field name) for a language", tags: ["Captions"] },
    })
    .get("/:videoId/captions/:language", ({ scope, params }) => getCaption(scope, params.videoId, params.language), {
      params, response: { 200: captionSchema, ...apiErrors }, detail: { summary: "Get a caption", tags: ["Captions"] },
    })
    .patch("/:videoId/captions/:language", ({ scope, params, body }) => updateCaption(scope, params.videoId, params.language, body ?? {}), {
      params,
      body: t.Optional(t.Object({ default: t.Optional(t.Boolean()) }, { additionalProperties: false })),
      response: { 200: captionSchema, ...apiErrors },
      detail: { summary: "Make a caption the default one (or not)", tags: ["Captions"] },
    })
    .delete("/:videoId/captions/:language", async ({ scope, params, set }) => {
      await deleteCaption(scope, params.videoId, params.language);
      set.status = 204;
    }, { params, response: { 204: t.Void(), ...apiErrors }, detail: { summary: "Delete a caption", tags: ["Captions"] } });
}
