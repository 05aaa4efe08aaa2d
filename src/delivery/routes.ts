import { Elysia, t } from "elysia";
import type { Environment } from "../config";
import type { AppContext } from "../context";
import { errorBody } from "../http/schemas";
import { captionFile, chapterFile } from "../captions/delivery";
import { HLS_JS_PATH, hlsJsResponse } from "./hls-asset";
import { accessOf } from "../private/access";
import { masterPlaylist, mp4File, playerPage, privateSession, renditionFile, thumbnailFile } from "./service";

const params = t.Object({ videoId: t.String() });
const tokenParams = t.Object({ videoId: t.String(), token: t.String() });
const media = { 200: t.Any(), 202: t.Any(), 206: t.Any(), 404: errorBody, 416: t.Any() };
// Private videos: `avh` (a session) on any asset; `token` (single use) on the player page.
const access = { avh: t.Optional(t.String()) };
// Players and CDNs add their own parameters (cache busters): delivery ignores what it does not know.
const lenient = { additionalProperties: true };

/** Public delivery of videos on an environment's listener: player page, HLS, MP4, thumbnail. */
export function deliveryRoutes(app: AppContext, environment: Environment) {
  return new Elysia({ prefix: "/vod", normalize: false })
    .get("/:videoId", ({ params, query, request }) => playerPage(app, environment, params.videoId, accessOf(request, query, query.token)), {
      params, query: t.Object({ ...access, token: t.Optional(t.String()) }, lenient), response: media, detail: { summary: "Embeddable player page", tags: ["Delivery"] },
    })
    .get("/:videoId/hls/manifest.m3u8", ({ params, query, request }) => masterPlaylist(app, environment, params.videoId, accessOf(request, query)), {
      params, query: t.Object(access, lenient), response: media, detail: { summary: "HLS master playlist (202 until the first rendition is encoded)", tags: ["Delivery"] },
    })
    .get("/:videoId/hls/:quality/:file", ({ params, query, request }) => renditionFile(app, environment, params.videoId, params.quality, params.file, accessOf(request, query)), {
      params: t.Object({ videoId: t.String(), quality: t.String(), file: t.String() }), query: t.Object(access, lenient), response: media,
      detail: { summary: "Rendition playlist or segment", tags: ["Delivery"] },
    })
    .get("/:videoId/mp4/source.mp4", ({ params, query, headers, request }) => mp4File(app, environment, params.videoId, headers.range ?? null, query.dl === "1" || query.dl === "true", accessOf(request, query)), {
      params, query: t.Object({ dl: t.Optional(t.String()), ...access }, lenient), response: media,
      detail: { summary: "MP4 (Range requests; ?dl=1 downloads)", tags: ["Delivery"] },
    })
    .get("/:videoId/thumbnail.jpg", ({ params, query, request }) => thumbnailFile(app, environment, params.videoId, accessOf(request, query)), {
      params, query: t.Object(access, lenient), response: media, detail: { summary: "Thumbnail", tags: ["Delivery"] },
    })
    .get("/:videoId/captions/:file", ({ params, query, request }) => captionFile(app, environment, params.videoId, params.file, accessOf(request, query)), {
      params: t.Object({ videoId: t.String(), file: t.String() }), query: t.Object(access, lenient), response: media,
      detail: { summary: "Caption file ({lang}.vtt) and its HLS subtitle playlist ({lang}.m3u8)", tags: ["Delivery"] },
    })
    .get("/:videoId/chapters/:file", ({ params, query, request }) => chapterFile(app, environment, params.videoId, params.file, accessOf(request, query)), {
      params: t.Object({ videoId: t.String(), file: t.String() }), query: t.Object(access, lenient), response: media,
      detail: { summary: "Chapter file ({lang}.vtt)", tags: ["Delivery"] },
    })
    // Private videos' tokenised assets (api.video's shape). HEAD looks without spending the token.
    .get("/:videoId/token/:token/session", ({ params, query, request }) => privateSession(app, environment, params.videoId, accessOf(request, query, params.token)), {
      params: tokenParams, response: { 200: t.Object({ session_token: t.String() }), 404: errorBody },
      detail: { summary: "Spend a private video's token for an `avh` session (24 h) that later asset requests add as ?avh=", tags: ["Delivery"] },
    })
    .get("/:videoId/token/:token/hls/manifest.m3u8", ({ params, query, request }) => masterPlaylist(app, environment, params.videoId, accessOf(request, query, params.token)), {
      params: tokenParams, response: media,
      detail: { summary: "Private HLS master playlist: spends the token, its URIs carry a new session", tags: ["Delivery"] },
    })
    .get("/:videoId/token/:token/mp4/source.mp4", ({ params, query, headers, request }) => mp4File(app, environment, params.videoId, headers.range ?? null, query.dl === "1" || query.dl === "true", accessOf(request, query, params.token)), {
      params: tokenParams, query: t.Object({ dl: t.Optional(t.String()), ...access }, lenient), response: media,
      detail: { summary: "Private MP4 (the token is spent)", tags: ["Delivery"] },
    })
    .get("/:videoId/token/:token/thumbnail.jpg", ({ params, query, request }) => thumbnailFile(app, environment, params.videoId, accessOf(request, query, params.token)), {
      params: tokenParams, response: media, detail: { summary: "Private thumbnail (the token is spent)", tags: ["Delivery"] },
    })
    .get("/:videoId/token/:token/captions/:file", ({ params, query, request }) => captionFile(app, environment, params.videoId, params.file, accessOf(request, query, params.token)), {
      params: t.Object({ videoId: t.String(), token: t.String(), file: t.String() }), response: media,
      detail: { summary: "Private caption file (a caption's `src`; the token is spent; `{lang}.m3u8` also opens a session)", tags: ["Delivery"] },
    })
    .get("/:videoId/token/:token/chapters/:file", ({ params, query, request }) => chapterFile(app, environment, params.videoId, params.file, accessOf(request, query, params.token)), {
      params: t.Object({ videoId: t.String(), token: t.String(), file: t.String() }), response: media,
      detail: { summary: "Private chapter file (a chapter's `src`; the token is spent)", tags: ["Delivery"] },
    });
}

/** Static assets of the player pages. */
export function assetRoutes() {
  return new Elysia({ prefix: "/assets", normalize: false })
    .get(HLS_JS_PATH.slice("/assets".length), () => hlsJsResponse(), { detail: { hide: true } });
}
