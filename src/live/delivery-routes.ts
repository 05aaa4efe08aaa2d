import { Elysia, t } from "elysia";
import type { Environment } from "../config";
import type { AppContext } from "../context";
import { errorBody } from "../http/schemas";
import { liveFile, livePlayerPage, livePlaylist, liveThumbnail } from "./delivery";

const media = { 200: t.Any(), 404: errorBody };
const tags = ["Delivery"];

/** Public live delivery on an environment's listener: player page, playlist, segments, thumbnail. */
export function liveDeliveryRoutes(app: AppContext, environment: Environment) {
  return new Elysia({ prefix: "/live", normalize: false })
    // `/live/{id}` is the player page and `/live/{id}.m3u8` the playlist: one route, told apart by the suffix.
    // (The router wants one parameter name per position: `liveStreamId` here may carry the suffix.)
    .get("/:liveStreamId", ({ params: { liveStreamId: name } }) => (name.endsWith(".m3u8")
      ? livePlaylist(app, environment, name.slice(0, -".m3u8".length))
      : livePlayerPage(app, environment, name)), {
      params: t.Object({ liveStreamId: t.String() }), response: media,
      detail: { summary: "Live player page (/live/{liveStreamId}) or live HLS playlist (/live/{liveStreamId}.m3u8; 404 until broadcasting)", tags },
    })
    .get("/:liveStreamId/thumbnail.jpg", ({ params }) => liveThumbnail(app, environment, params.liveStreamId), {
      params: t.Object({ liveStreamId: t.String() }), response: media,
      detail: { summary: "Live stream thumbnail (uploaded, else refreshed from the broadcast)", tags },
    })
    .get("/:liveStreamId/:broadcastId/:rendition/:file", ({ params }) => liveFile(app, environment, params.liveStreamId, params.broadcastId, params.rendition, params.file), {
      params: t.Object({ liveStreamId: t.String(), broadcastId: t.String(), rendition: t.String(), file: t.String() }), response: media,
      detail: { summary: "Live rendition playlist or segment", tags },
    });
}
