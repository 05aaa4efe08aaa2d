import { Elysia, t } from "elysia";
import { paginationSchema } from "../http/pagination";
import { streamedBody } from "../http/app";
import { apiErrors, errorBody } from "../http/schemas";
import type { ScopePlugin } from "../http/scope";
import { importVideo } from "../imports/service";
import { uploadSource } from "../uploads/service";
import { listVideos } from "./list";
import { parseVideoQuery } from "./query";
import { videoCreation, videoSchema, videoStatusSchema, videoUpdate } from "./schema";
import { withCreationExtras } from "./creation-extras";
import { createVideo, deleteVideo, getVideo, updateVideo } from "./service";
import { videoStatus } from "./status";
import { pickThumbnail, uploadThumbnail } from "./thumbnail";
import { wholeFileUpload } from "../uploads/receive";

const params = t.Object({ videoId: t.String() });
const list = { 200: t.Object({ data: t.Array(videoSchema), pagination: paginationSchema }), ...apiErrors };
// Filters are read from the raw query string (repeated `tags[]`); this schema documents them.
const listQuery = t.Object({
  title: t.Optional(t.String()), description: t.Optional(t.String()), liveStreamId: t.Optional(t.String()),
  "tags[]": t.Optional(t.String()), sortBy: t.Optional(t.String()), sortOrder: t.Optional(t.String()),
  currentPage: t.Optional(t.String()), pageSize: t.Optional(t.String()),
}, { additionalProperties: true });

/** Main API /videos. */
export function videoRoutes(scoped: ScopePlugin) {
  return new Elysia({ prefix: "/videos", normalize: false })
    .use(scoped)
    .use(streamedBody())
    .post("", ({ scope, body, set }) => withCreationExtras(scope, body, (extra) => {
      // With `source` the file is fetched in the background: 202, like api.video.
      if (body.source !== undefined) {
        set.status = 202;
        return importVideo(scope, { ...body, source: body.source }, extra);
      }
      set.status = 201;
      return createVideo(scope, body, extra);
    }), {
      body: videoCreation, response: { 201: videoSchema, 202: videoSchema, ...apiErrors, 409: errorBody },
      detail: { summary: "Create a video container, or with `source` import a URL or copy a video (202)", tags: ["Videos"] },
    })
    .get("", ({ scope, request }) => listVideos(scope, { url: request.url, ...parseVideoQuery(request.url, { search: false }) }), {
      query: listQuery, response: list,
      detail: { summary: "List videos (title, description, tags[], metadata[key], liveStreamId, sortBy, sortOrder)", tags: ["Videos"] },
    })
    .get("/search", ({ scope, request }) => listVideos(scope, { url: request.url, ...parseVideoQuery(request.url, { search: true }) }), {
      query: t.Object({ ...listQuery.properties, q: t.Optional(t.String()) }, { additionalProperties: true }), response: list,
      detail: { summary: "Search videos: the /videos filters plus free text `q` over title, description and tags", tags: ["Videos"] },
    })
    .get("/:videoId", ({ scope, params }) => getVideo(scope, params.videoId), {
      params, response: { 200: videoSchema, ...apiErrors }, detail: { summary: "Get a video", tags: ["Videos"] },
    })
    .patch("/:videoId", ({ scope, params, body }) => updateVideo(scope, params.videoId, body), {
      params, body: videoUpdate, response: { 200: videoSchema, ...apiErrors, 409: errorBody }, detail: { summary: "Update a video (lists are replaced)", tags: ["Videos"] },
    })
    .delete("/:videoId", async ({ scope, params, set }) => {
      await deleteVideo(scope, params.videoId);
      set.status = 204;
    }, { params, response: { 204: t.Void(), ...apiErrors }, detail: { summary: "Delete a video with its media (with VIDHOST_VIDEO_RESTORE: discard it for 90 days)", tags: ["Videos"] } })
    .get("/:videoId/status", ({ scope, params }) => videoStatus(scope, params.videoId), {
      params, response: { 200: videoStatusSchema, ...apiErrors }, detail: { summary: "Ingest and encoding status", tags: ["Videos"] },
    })
    .post("/:videoId/source", ({ scope, params, request, set }) => {
      set.status = 201;
      return uploadSource(scope, params.videoId, {
        contentType: request.headers.get("content-type"),
        contentRange: request.headers.get("content-range"),
        body: request.body,
      });
    }, {
      parse: "stream", params, response: { 201: videoSchema, ...apiErrors },
      detail: { summary: "Upload the source (multipart, whole or chunked with Content-Range bytes or part)", tags: ["Videos"] },
    })
    .post("/:videoId/thumbnail", ({ scope, params, request }) => uploadThumbnail(scope, params.videoId, wholeFileUpload(request)), {
      parse: "stream", params, response: { 200: videoSchema, ...apiErrors },
      detail: { summary: "Upload a thumbnail (jpeg, png or webp, up to 8 MiB)", tags: ["Videos"] },
    })
    .patch("/:videoId/thumbnail", ({ scope, params, body }) => pickThumbnail(scope, params.videoId, body.timecode), {
      params, body: t.Object({ timecode: t.String() }, { additionalProperties: false }), response: { 200: videoSchema, ...apiErrors },
      detail: { summary: "Pick the thumbnail at a timecode (applied once encoded)", tags: ["Videos"] },
    });
}
