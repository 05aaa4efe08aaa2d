import { Elysia, t } from "elysia";
import { streamedBody } from "../http/app";
import { paginationSchema } from "../http/pagination";
import { apiErrors } from "../http/schemas";
import type { ScopePlugin } from "../http/scope";
import { liveStreamCreation, liveStreamListQuery, liveStreamSchema, liveStreamUpdate } from "./schema";
import { completeLiveStream, createLiveStream, deleteLiveStream, getLiveStream, listLiveStreams, updateLiveStream } from "./service";
import { deleteLiveThumbnail, uploadLiveThumbnail } from "./thumbnail";
import { wholeFileUpload } from "../uploads/receive";

const params = t.Object({ liveStreamId: t.String() });
const one = { 200: liveStreamSchema, ...apiErrors };
const tags = ["Live streams"];

/** Main API /live-streams. */
export function liveStreamRoutes(scoped: ScopePlugin) {
  return new Elysia({ prefix: "/live-streams", normalize: false })
    .use(scoped)
    .use(streamedBody())
    // api.video answers 200 here, not 201 (apivideo-behaviour §12).
    .post("", ({ scope, body }) => createLiveStream(scope, body), {
      body: liveStreamCreation, response: one,
      detail: { summary: "Create a live stream (ingest: rtmp://{host}:{port}/s/{streamKey})", tags },
    })
    .get("", ({ scope, query, request }) => listLiveStreams(scope, { url: request.url, query }), {
      query: liveStreamListQuery, response: { 200: t.Object({ data: t.Array(liveStreamSchema), pagination: paginationSchema }), ...apiErrors },
      detail: { summary: "List live streams (streamKey, name, sortBy=name|createdAt|updatedAt, sortOrder)", tags },
    })
    .get("/:liveStreamId", ({ scope, params }) => getLiveStream(scope, params.liveStreamId), {
      params, response: one, detail: { summary: "Get a live stream", tags },
    })
    .patch("/:liveStreamId", ({ scope, params, body }) => updateLiveStream(scope, params.liveStreamId, body), {
      params, body: liveStreamUpdate, response: one,
      detail: { summary: "Update a live stream (restreams are replaced; [] clears them)", tags },
    })
    .delete("/:liveStreamId", async ({ scope, params, set }) => {
      await deleteLiveStream(scope, params.liveStreamId);
      set.status = 204;
    }, { params, response: { 204: t.Void(), ...apiErrors }, detail: { summary: "Delete a live stream (ends a running broadcast first)", tags } })
    .post("/:liveStreamId/thumbnail", async ({ scope, params, request, set }) => {
      set.status = 201;
      return uploadLiveThumbnail(scope, params.liveStreamId, wholeFileUpload(request));
    }, {
      parse: "stream", params, response: { 201: liveStreamSchema, ...apiErrors },
      detail: { summary: "Upload a thumbnail (jpeg, png or webp, up to 8 MiB)", tags },
    })
    .delete("/:liveStreamId/thumbnail", ({ scope, params }) => deleteLiveThumbnail(scope, params.liveStreamId), {
      params, response: one, detail: { summary: "Delete the uploaded thumbnail", tags },
    })
    .put("/:liveStreamId/complete", ({ scope, params, set }) => {
      completeLiveStream(scope, params.liveStreamId);
      set.status = 202;
    }, {
      params, response: { 202: t.Void(), ...apiErrors },
      detail: { summary: "Complete the broadcast now (asynchronous: the recording then becomes a video)", tags },
    });
}
