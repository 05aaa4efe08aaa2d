import { Elysia, t } from "elysia";
import type { Environment } from "../config";
import type { AppContext } from "../context";
import { streamedBody } from "../http/app";
import { apiErrors } from "../http/schemas";
import { scopeForUploadToken } from "../upload-tokens/service";
import { videoSchema } from "../videos/schema";
import { uploadWithToken } from "./token-upload";

/** Main API /upload: uploads authorised by an upload token instead of an API key. */
export function uploadRoutes(app: AppContext, environment: Environment) {
  return new Elysia({ prefix: "/upload", normalize: false })
    .use(streamedBody())
    .post("", ({ query, request, set }) => {
      // The official Node client also sends its Basic header here; the token alone decides.
      const scope = scopeForUploadToken(app, environment, query.token);
      set.status = 201;
      return uploadWithToken(scope, {
        contentType: request.headers.get("content-type"),
        contentRange: request.headers.get("content-range"),
        body: request.body,
      });
    }, {
      parse: "stream",
      query: t.Object({ token: t.Optional(t.String()) }, { additionalProperties: false }),
      response: { 201: videoSchema, ...apiErrors },
      detail: { summary: "Upload with an upload token (multipart; Content-Range for chunks; optional videoId field)", tags: ["Videos"] },
    });
}
