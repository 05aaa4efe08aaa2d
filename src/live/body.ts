import type { Environment } from "../config";
import type { AppContext } from "../context";
import type { liveBroadcasts, liveStreams } from "../db/schema";
import { iframeSnippet } from "../delivery/player";
import { mintToken } from "../private/tokens";

export type LiveStreamRow = typeof liveStreams.$inferSelect;
export type BroadcastRow = typeof liveBroadcasts.$inferSelect;

export interface Restream {
  name: string;
  serverUrl: string;
  streamKey: string;
}

/** The storage folder of one live stream: live HLS, picture, uploaded thumbnail, recording pieces. */
export const liveKey = (s: { projectId: string; environment: Environment; id: string }, ...rest: string[]) =>
  [s.projectId, s.environment, "live", s.id, ...rest] as const;

/** The storage folder of one broadcast's recording pieces. */
export const piecesKey = (b: BroadcastRow, ...rest: string[]) =>
  liveKey({ projectId: b.projectId, environment: b.environment, id: b.liveStreamId }, "broadcasts", b.id, ...rest);

/** The storage folder of one broadcast's live HLS (one sub-folder per rendition). */
export const hlsKey = (b: BroadcastRow, ...rest: string[]) =>
  liveKey({ projectId: b.projectId, environment: b.environment, id: b.liveStreamId }, "hls", b.id, ...rest);

/** Base URL of a live stream's public assets on its environment's listener: `{base}.m3u8`, `{base}` (player). */
export function liveBase(app: Pick<AppContext, "urls">, environment: Environment, liveStreamId: string): string {
  return `${app.urls[environment]}/live/${liveStreamId}`;
}

/** The ingest URL broadcasters push to (api.video's shape: the key is the stream name of application `s`). */
export function ingestUrl(app: Pick<AppContext, "urls">, streamKey: string): string {
  return `${app.urls.rtmp}/s/${streamKey}`;
}

/**
 * A live stream's asset URLs; a private one's carry fresh single-use tokens like a private
 * video's: `{base}?token=T`, `{base}/token/{T}/hls/manifest.m3u8`, `{base}/token/{T}/thumbnail.jpg`.
 */
function liveAssets(app: Pick<AppContext, "urls" | "db" | "clock" | "config">, row: LiveStreamRow) {
  const base = liveBase(app, row.environment, row.id);
  if (row.public) return { hls: `${base}.m3u8`, iframe: iframeSnippet(base), player: base, thumbnail: `${base}/thumbnail.jpg` };
  const player = `${base}?token=${mintToken(app, row.id)}`;
  return {
    hls: `${base}/token/${mintToken(app, row.id)}/hls/manifest.m3u8`,
    iframe: iframeSnippet(player),
    player,
    thumbnail: `${base}/token/${mintToken(app, row.id)}/thumbnail.jpg`,
  };
}

/** The api.video live-stream object; assets point at this server. */
export function liveStreamBody(app: Pick<AppContext, "urls" | "db" | "clock" | "config">, row: LiveStreamRow) {
  return {
    liveStreamId: row.id,
    name: row.name,
    streamKey: row.streamKey,
    public: row.public,
    assets: liveAssets(app, row),
    // Left out when unset (not null): api.video's schema types it as a plain string.
    ...(row.playerId !== null && { playerId: row.playerId }),
    broadcasting: row.broadcasting,
    restreams: JSON.parse(row.restreams) as Restream[],
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}
