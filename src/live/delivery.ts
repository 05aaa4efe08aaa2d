// Live delivery on an environment's listener: the playlist at `assets.hls` ({id}.m3u8), its
// segments, the live picture or uploaded thumbnail, and the live player page. By id alone, like
// VOD delivery (players hold no key), but only on the live stream's own environment's listener.
import { and, eq } from "drizzle-orm";
import type { Environment } from "../config";
import type { AppContext } from "../context";
import { liveStreams } from "../db/schema";
import { notFound } from "../http/errors";
import { playerPageResponse } from "../delivery/player-page";
import { admit, cacheControl, settle, tokenSession, type Access, type Pass } from "../private/access";
import { withSession } from "../private/playlist";
import { recordDelivery, segmentSeconds } from "../usage/record";
import { hlsKey, liveBase, liveKey, type BroadcastRow, type LiveStreamRow } from "./body";
import { getBroadcast, latestBroadcast } from "./broadcasts";
import { parseDate, type LiveRendition } from "./runtime";

const CORS = { "access-control-allow-origin": "*", "cross-origin-resource-policy": "cross-origin" };
const PLAYLIST = { ...CORS, "content-type": "application/vnd.apple.mpegurl", "cache-control": "no-cache, no-store" };
const ID = /^li[0-9A-Za-z]{22}$/;
const BROADCAST = /^bc[0-9A-Za-z]{22}$/;
const SEGMENT = /^seg_\d{5,}\.ts$/;

/** By id on its own environment's listener; a private stream only to a token or `avh` session holder (else the same 404). */
function deliverable(app: AppContext, environment: Environment, liveStreamId: string, access: Access): { stream: LiveStreamRow; pass: Pass } {
  const row = ID.test(liveStreamId)
    ? app.db.select().from(liveStreams).where(and(eq(liveStreams.id, liveStreamId), eq(liveStreams.environment, environment))).get()
    : undefined;
  if (!row) throw notFound("liveStreamId");
  return { stream: row, pass: admit(app, row, access, "liveStreamId") };
}

/** A private stream's playlist with its URIs carrying the session (as served at `path`). */
const signed = (text: string, path: string, session: string | null) => (session ? withSession(text, path, session) : text);

/** Once a broadcast is over its playlists end, so players stop instead of waiting. */
const over = (b: BroadcastRow) => b.state === "finalizing" || b.state === "completed" || b.state === "failed";

function withEnd(text: string, b: BroadcastRow): string {
  return over(b) && !text.includes("#EXT-X-ENDLIST") ? `${text.trimEnd()}\n#EXT-X-ENDLIST\n` : text;
}

/** ffmpeg's date format in playlists: 2026-11-22T02:42:28.270+0000. */
const pdtText = (ms: number) => new Date(ms).toISOString().replace("Z", "+0000");

/** Moves each EXT-X-PROGRAM-DATE-TIME to when its segment's first frame arrived (LiveRuntime.pdtShift). */
function correctDates(app: AppContext, b: BroadcastRow, text: string): string {
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i].startsWith("#EXT-X-PROGRAM-DATE-TIME:")) continue;
    const segment = /^seg_(\d+)\.ts$/.exec(lines[i + 1] ?? "");
    const at = parseDate(lines[i].slice(25));
    const shift = segment ? app.live.pdtShift(b.id, Number(segment[1]), text) : 0;
    if (shift && Number.isFinite(at)) lines[i] = `#EXT-X-PROGRAM-DATE-TIME:${pdtText(at + shift)}`;
  }
  return lines.join("\n");
}

/**
 * GET /live/{id}.m3u8: the newest broadcast's media playlist (one rendition), or a master playlist
 * over its renditions (VIDHOST_LIVE_LADDER). 404 until a broadcast has written its first segment.
 * A private stream's token URL (`/live/{id}/token/{T}/hls/manifest.m3u8`) spends the token and
 * always answers a master playlist whose variants carry a new session: players reload a live media
 * playlist every few seconds, which a spent token could not serve.
 */
export async function livePlaylist(app: AppContext, environment: Environment, liveStreamId: string, access: Access): Promise<Response> {
  const { stream, pass } = deliverable(app, environment, liveStreamId, access);
  const b = latestBroadcast(app, stream.id);
  const renditions = b ? (JSON.parse(b.renditions) as LiveRendition[]) : [];
  if (!b || !renditions.length) throw notFound("liveStreamId");
  const prefix = `${stream.id}/${b.id}`;
  const path = `/live/${stream.id}.m3u8`;
  if (renditions.length === 1 && access.token && !pass.session) {
    if (app.storage.size(hlsKey(b, "source", "index.m3u8")) === null) throw notFound("liveStreamId");
    const session = settle(app, pass, true);
    const r = renditions[0];
    const master = ["#EXTM3U", "#EXT-X-VERSION:6", `#EXT-X-STREAM-INF:BANDWIDTH=${r.bandwidth}${r.width && r.height ? `,RESOLUTION=${r.width}x${r.height}` : ""}`, `${stream.id}.m3u8`, ""].join("\n");
    return new Response(signed(master, path, session), { headers: PLAYLIST });
  }
  if (renditions.length === 1) {
    const text = await app.storage.get(hlsKey(b, "source", "index.m3u8"))?.text();
    if (!text) throw notFound("liveStreamId");
    // Segment URIs are relative to the rendition's folder; this playlist is served one level up.
    const body = correctDates(app, b, text).split("\n").map((line) => (line && !line.startsWith("#") ? `${prefix}/source/${line}` : line)).join("\n");
    return new Response(signed(withEnd(body, b), path, settle(app, pass, true)), { headers: PLAYLIST });
  }
  const lines = ["#EXTM3U", "#EXT-X-VERSION:6", "#EXT-X-INDEPENDENT-SEGMENTS"];
  for (const r of renditions) {
    if (app.storage.size(hlsKey(b, r.name, "index.m3u8")) === null) continue;
    lines.push(`#EXT-X-STREAM-INF:BANDWIDTH=${r.bandwidth}${r.width && r.height ? `,RESOLUTION=${r.width}x${r.height}` : ""},NAME="${r.name}"`, `${prefix}/${r.name}/index.m3u8`);
  }
  if (lines.length === 3) throw notFound("liveStreamId");
  return new Response(signed(lines.join("\n") + "\n", path, settle(app, pass, true)), { headers: PLAYLIST });
}

/**
 * A rendition playlist or segment of a broadcast; segment names never repeat within one, so they
 * cache forever. Each segment served counts its duration toward the project's live delivery usage.
 */
export async function liveFile(app: AppContext, environment: Environment, liveStreamId: string, broadcastId: string, rendition: string, file: string, access: Access): Promise<Response> {
  const { stream, pass } = deliverable(app, environment, liveStreamId, access);
  const b = BROADCAST.test(broadcastId) ? getBroadcast(app, broadcastId) : undefined;
  const known = b && b.liveStreamId === stream.id && (JSON.parse(b.renditions) as LiveRendition[]).some((r) => r.name === rendition);
  if (!b || !known || (file !== "index.m3u8" && !SEGMENT.test(file))) throw notFound("file");
  const blob = app.storage.get(hlsKey(b, rendition, file));
  if (!blob) throw notFound("file");
  const session = settle(app, pass, false);
  if (file === "index.m3u8") {
    const text = withEnd(correctDates(app, b, await blob.text()), b);
    return new Response(signed(text, `/live/${stream.id}/${b.id}/${rendition}/index.m3u8`, session), { headers: PLAYLIST });
  }
  const playlist = await app.storage.get(hlsKey(b, rendition, "index.m3u8"))?.text();
  // A segment that already left the window counts as a nominal one; a HEAD serves nothing and counts nothing.
  if (!pass.head) recordDelivery(app, stream, "live_stream_hls", (playlist && segmentSeconds(playlist, file)) || app.config.liveSegmentS);
  return new Response(blob, { headers: { ...CORS, "content-type": "video/mp2t", "cache-control": cacheControl(pass, "public, max-age=31536000, immutable") } });
}

/** The uploaded thumbnail, else the latest picture of the broadcast. */
export async function liveThumbnail(app: AppContext, environment: Environment, liveStreamId: string, access: Access): Promise<Response> {
  const { stream, pass } = deliverable(app, environment, liveStreamId, access);
  const blob = (stream.thumbnailCustom ? app.storage.get(liveKey(stream, "thumbnail")) : null) ?? app.storage.get(liveKey(stream, "picture.jpg"));
  if (!blob) throw notFound("liveStreamId");
  settle(app, pass, false);
  const head = new Uint8Array(await blob.slice(0, 12).arrayBuffer());
  const type = head[0] === 0x89 ? "image/png" : head[0] === 0x52 ? "image/webp" : "image/jpeg";
  return new Response(blob, { headers: { ...CORS, "content-type": type, "cache-control": "no-cache" } });
}

/** The live player page (hls.js, waits for the broadcast while the playlist answers 404; see playerPageResponse). */
export function livePlayerPage(app: AppContext, environment: Environment, liveStreamId: string, access: Access): Response {
  const { stream, pass } = deliverable(app, environment, liveStreamId, access);
  const base = liveBase(app, environment, stream.id);
  const hasPicture = stream.thumbnailCustom || app.storage.size(liveKey(stream, "picture.jpg")) !== null;
  return playerPageResponse(app, environment, pass, {
    owner: stream,
    title: stream.name,
    hlsUrl: `${base}.m3u8`,
    posterUrl: hasPicture ? `${base}/thumbnail.jpg` : null,
    live: true,
  });
}

/** GET /live/{id}/token/{token}/session: spends the token for a 24-hour `avh` session. */
export function liveSession(app: AppContext, environment: Environment, liveStreamId: string, access: Access) {
  return tokenSession(app, deliverable(app, environment, liveStreamId, access).pass, access);
}
