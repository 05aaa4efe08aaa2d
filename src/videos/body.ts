import type { Environment } from "../config";
import type { AppContext } from "../context";
import type { videos } from "../db/schema";
import { iframeSnippet } from "../delivery/player";

export type VideoRow = typeof videos.$inferSelect;

/** Base URL of a video's public assets on its environment's listener. */
export function vodBase(app: Pick<AppContext, "urls">, environment: Environment, videoId: string): string {
  return `${environment === "sandbox" ? app.urls.sandbox : app.urls.production}/vod/${videoId}`;
}

/** The api.video video object; assets point at this server. */
export function videoBody(app: Pick<AppContext, "urls">, row: VideoRow) {
  const base = vodBase(app, row.environment, row.id);
  const assets: { iframe: string; player: string; hls: string; thumbnail: string; mp4?: string } = {
    iframe: iframeSnippet(base),
    player: base,
    hls: `${base}/hls/manifest.m3u8`,
    thumbnail: `${base}/thumbnail.jpg`,
  };
  if (row.mp4Support) assets.mp4 = `${base}/mp4/source.mp4`;
  const source: { uri: string; type?: string; liveStream?: { liveStreamId: string; links: { rel: string; uri: string }[] } } = { uri: `/videos/${row.id}/source` };
  if (row.sourceType) source.type = row.sourceType;
  if (row.liveStreamId) {
    source.liveStream = {
      liveStreamId: row.liveStreamId,
      links: [{ rel: "self", uri: `/live-streams/${row.liveStreamId}` }],
    };
  }
  return {
    videoId: row.id,
    createdAt: row.createdAt,
    title: row.title,
    description: row.description,
    publishedAt: row.createdAt,
    updatedAt: row.updatedAt,
    discardedAt: null as string | null,
    deletesAt: row.expiresAt ? `${new Date(row.expiresAt).toISOString().slice(0, 19)}+00:00` : null,
    discarded: false,
    language: row.language,
    languageOrigin: row.languageOrigin,
    tags: JSON.parse(row.tags) as string[],
    metadata: JSON.parse(row.metadata) as { key: string; value: string }[],
    source,
    assets,
    playerId: row.playerId,
    public: row.public,
    panoramic: row.panoramic,
    mp4Support: row.mp4Support,
  };
}
