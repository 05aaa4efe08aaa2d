import { Elysia, t } from "elysia";
import type { Environment } from "../config";
import type { AppContext } from "../context";
import { errorBody } from "../http/schemas";
import { captionFile, chapterFile } from "../captions/delivery";
import { HLS_JS_PATH, hlsJsResponse } from "./hls-asset";
import { masterPlaylist, mp4File, playerPage, renditionFile, thumbnailFile } from "./service";

const params = t.Object({ videoId: t.String() });
const media = { 200: t.Any(), 202: t.Any(), 206: t.Any(), 404: errorBody, 416: t.Any() };

/** Public delivery of videos on an environment's listener: player page, HLS, MP4, thumbnail. */
export function deliveryRoutes(app: AppContext, environment: Environment) {
  return new Elysia({ prefix: "/vod", normalize: false })
    .get("/:videoId", ({ params }) => playerPage(app, environment, params.videoId), {
      params, response: media, detail: { summary: "Embeddable player page", tags: ["Delivery"] },
    })
    .get("/:videoId/hls/manifest.m3u8", ({ params }) => masterPlaylist(app, environment, params.videoId), {
      params, response: media, detail: { summary: "HLS master playlist (202 until the first rendition is encoded)", tags: ["Delivery"] },
    })
    .get("/:videoId/hls/:quality/:file", ({ params }) => renditionFile(app, environment, params.videoId, params.quality, params.file), {
      params: t.Object({ videoId: t.String(), quality: t.String(), file: t.String() }), response: media,
      detail: { summary: "Rendition playlist or segment", tags: ["Delivery"] },
    })
    .get("/:videoId/mp4/source.mp4", ({ params, query, headers }) => mp4File(app, environment, params.videoId, headers.range ?? null, query.dl === "1" || query.dl === "true"), {
      params, query: t.Object({ dl: t.Optional(t.String()) }), response: media,
      detail: { summary: "MP4 (Range requests; ?dl=1 downloads)", tags: ["Delivery"] },
    })
    .get("/:videoId/thumbnail.jpg", ({ params }) => thumbnailFile(app, environment, params.videoId), {
      params, response: media, detail: { summary: "Thumbnail", tags: ["Delivery"] },
    })
    .get("/:videoId/captions/:file", ({ params }) => captionFile(app, environment, params.videoId, params.file), {
      params: t.Object({ videoId: t.String(), file: t.String() }), response: media,
      detail: { summary: "Caption file ({lang}.vtt) and its HLS subtitle playlist ({lang}.m3u8)", tags: ["Delivery"] },
    })
    .get("/:videoId/chapters/:file", ({ params }) => chapterFile(app, environment, params.videoId, params.file), {
      params: t.Object({ videoId: t.String(), file: t.String() }), response: media,
      detail: { summary: "Chapter file ({lang}.vtt)", tags: ["Delivery"] },
    });
}

/** Static assets of the player pages. */
export function assetRoutes() {
  return new Elysia({ prefix: "/assets", normalize: false })
    .get(HLS_JS_PATH.slice("/assets".length), () => hlsJsResponse(), { detail: { hide: true } });
}
