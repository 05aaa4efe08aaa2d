import { Elysia, t } from "elysia";
import type { Environment } from "../config";
import type { AppContext } from "../context";
import { errorBody } from "../http/schemas";
import { accessOf } from "../private/access";
import { liveFile, livePlayerPage, livePlaylist, liveSession, liveThumbnail } from "./delivery";

const media = { 200: t.Any(), 404: errorBody };
const tags = ["Delivery"];
// Private live streams: `avh` (a session) on any asset; `token` (single use) on the player page.
const access = { avh: t.Optional(t.String()) };
// Players and CDNs add their own parameters (cache busters): delivery ignores what it does not know.
const lenient = { additionalProperties: true };
const tokenParams = t.Object({ liveStreamId: t.String(), token: t.String() });

/** Public live delivery on an environment's listener: player page, playlist, segments, thumbnail. */
export function liveDeliveryRoutes(app: AppContext, environment: Environment) {
  return new Elysia({ prefix: "/live", normalize: false })
    // `/live/{id}` is the player page and `/live/{id}.m3u8` the playlist: one route, told apart by the suffix.
    // (The router wants one parameter name per position: `liveStreamId` here may carry the suffix.)
    .get("/:liveStreamId", ({ params: { liveStreamId: name }, query, request }) => (name.endsWith(".m3u8")
      ? livePlaylist(app, environment, name.slice(0, -".m3u8".length), accessOf(request, query))
      : livePlayerPage(app, environment, name, accessOf(request, query, query.token))), {
      params: t.Object({ liveStreamId: t.String() }), query: t.Object({ ...access, token: t.Optional(t.String()) }, lenient), response: media,
      detail: { summary: "Live player page (/live/{liveStreamId}) or live HLS playlist (/live/{liveStreamId}.m3u8; 404 until broadcasting)", tags },
    })
    .get("/:liveStreamId/thumbnail.jpg", ({ params, query, request }) => liveThumbnail(app, environment, params.liveStreamId, accessOf(request, query)), {
      params: t.Object({ liveStreamId: t.String() }), query: t.Object(access, lenient), response: media,
      detail: { summary: "Live stream thumbnail (uploaded, else refreshed from the broadcast)", tags },
    })
    .get("/:liveStreamId/:broadcastId/:rendition/:file", ({ params, query, request }) => liveFile(app, environment, params.liveStreamId, params.broadcastId, params.rendition, params.file, accessOf(request, query)), {
      params: t.Object({ liveStreamId: t.String(), broadcastId: t.String(), rendition: t.String(), file: t.String() }), query: t.Object(access, lenient), response: media,
      detail: { summary: "Live rendition playlist or segment", tags },
    })
    // Private live streams' tokenised assets (like private videos'). HEAD looks without spending the token.
    .get("/:liveStreamId/token/:token/session", ({ params, query, request }) => liveSession(app, environment, params.liveStreamId, accessOf(request, query, params.token)), {
      params: tokenParams, response: { 200: t.Object({ session_token: t.String() }), 404: errorBody },
      detail: { summary: "Spend a private live stream's token for an `avh` session (24 h)", tags },
    })
    .get("/:liveStreamId/token/:token/hls/manifest.m3u8", ({ params, query, request }) => livePlaylist(app, environment, params.liveStreamId, accessOf(request, query, params.token)), {
      params: tokenParams, response: media,
      detail: { summary: "Private live playlist: spends the token; a master playlist whose URIs carry a new session", tags },
    })
    .get("/:liveStreamId/token/:token/thumbnail.jpg", ({ params, query, request }) => liveThumbnail(app, environment, params.liveStreamId, accessOf(request, query, params.token)), {
      params: tokenParams, response: media, detail: { summary: "Private live stream thumbnail (the token is spent)", tags },
    });
}
