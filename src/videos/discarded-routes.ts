import { Elysia, t } from "elysia";
import { paginationSchema } from "../http/pagination";
import { apiErrors } from "../http/schemas";
import type { ScopePlugin } from "../http/scope";
import { getDiscardedVideo, restoreVideo } from "./discarded";
import { listVideos } from "./list";
import { parseVideoQuery } from "./query";
import { videoSchema } from "./schema";

const params = t.Object({ videoId: t.String() });
// Filters are read from the raw query string (repeated `tags[]`), as on /videos; this schema documents them.
const listQuery = t.Object({
  title: t.Optional(t.String()), description: t.Optional(t.String()), liveStreamId: t.Optional(t.String()),
  "tags[]": t.Optional(t.String()), sortBy: t.Optional(t.String()), sortOrder: t.Optional(t.String()),
  currentPage: t.Optional(t.String()), pageSize: t.Optional(t.String()),
}, { additionalProperties: true });

/** Main API /discarded/videos (Video Restore, VIDHOST_VIDEO_RESTORE). */
export function discardedVideoRoutes(scoped: ScopePlugin) {
  return new Elysia({ prefix: "/discarded/videos", normalize: false })
    .use(scoped)
    .get("", ({ scope, request }) => listVideos(scope, { url: request.url, discarded: true, ...parseVideoQuery(request.url, { search: false }) }), {
      query: listQuery, response: { 200: t.Object({ data: t.Array(videoSchema), pagination: paginationSchema }), ...apiErrors },
      detail: { summary: "List discarded videos (the /videos filters, sort and pagination)", tags: ["Videos"] },
    })
    .get("/:videoId", ({ scope, params }) => getDiscardedVideo(scope, params.videoId), {
      params, response: { 200: videoSchema, ...apiErrors }, detail: { summary: "Get a discarded video", tags: ["Videos"] },
    })
    .patch("/:videoId", ({ scope, params, body }) => restoreVideo(scope, params.videoId, body.discarded), {
      params, body: t.Object({ discarded: t.Boolean() }, { additionalProperties: false }), response: { 200: videoSchema, ...apiErrors },
      detail: { summary: "Restore a discarded video ({discarded: false}; any other value is a 400)", tags: ["Videos"] },
    });
}
