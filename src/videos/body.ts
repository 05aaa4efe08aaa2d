import { atom } from "../clock";
import type { Environment } from "../config";
import type { AppContext } from "../context";
import type { videos } from "../db/schema";
import { iframeSnippet } from "../delivery/player";
import { mintToken } from "../private/tokens";

export type VideoRow = typeof videos.$inferSelect;

/** Base URL of a video's public assets on its environment's listener. */
export function vodBase(app: Pick<AppContext, "urls">, environment: Environment, videoId: string): string {
  return `${app.urls[environment]}/vod/${videoId}`;
}

type MintCtx = Pick<AppContext, "urls" | "db" | "clock" | "config">;

/** The URL of one file under a video's `/vod/{id}/`: a private video's with a fresh single-use token (`/vod/{id}/token/{T}/…`). */
export function vodAssetUrl(app: MintCtx, row: Pick<VideoRow, "id" | "environment" | "public">, path: string): string {
  const base = vodBase(app, row.environment, row.id);
  return row.public ? `${base}/${path}` : `${base}/token/${mintToken(app, row.id)}/${path}`;
}

/**
 * A video's asset URLs. A private video's carry fresh single-use tokens (minted on every answer,
 * one per asset so a client may use each once): `{base}?token=T` and `{base}/token/{T}/…`.
 */
export function videoAssets(app: MintCtx, row: VideoRow) {
  const base = vodBase(app, row.environment, row.id);
  const at = (path: string) => vodAssetUrl(app, row, path);
  const player = row.public ? base : `${base}?token=${mintToken(app, row.id)}`;
  const assets: { iframe: string; player: string; hls: string; thumbnail: string; mp4?: string } = {
    iframe: iframeSnippet(player),
    player,
    hls: at("hls/manifest.m3u8"),
    thumbnail: at("thumbnail.jpg"),
  };
  if (row.mp4Support) assets.mp4 = at("mp4/source.mp4");
  return assets;
}

/** The api.video video object; assets point at this server (null once discarded). */
export function videoBody(app: MintCtx, row: VideoRow) {
  const discarded = row.discardedAt !== null;
  // A discarded sandbox video still goes at its 24 hours if that comes first.
  const deletesAt = Math.min(row.expiresAt ?? Infinity, discarded ? row.purgeAt ?? Infinity : Infinity);
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
    discardedAt: row.discardedAt,
    deletesAt: Number.isFinite(deletesAt) ? atom(new Date(deletesAt)) : null,
    discarded,
    language: row.language,
    languageOrigin: row.languageOrigin,
    tags: JSON.parse(row.tags) as string[],
    metadata: JSON.parse(row.metadata) as { key: string; value: string }[],
    source,
    assets: discarded ? null : videoAssets(app, row),
    // Left out when unset (not null): api.video's schema types it as a plain string.
    ...(row.playerId !== null && { playerId: row.playerId }),
    public: row.public,
    panoramic: row.panoramic,
    mp4Support: row.mp4Support,
  };
}
