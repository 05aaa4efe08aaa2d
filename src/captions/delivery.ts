// Public delivery of captions and chapters (no key, like the rest of /vod): the WebVTT files at
// their `src`, and each caption as an HLS subtitle rendition listed in the master playlist.
import { and, asc, eq } from "drizzle-orm";
import { cacheControl, settle, type Access } from "../private/access";
import { withSession } from "../private/playlist";
import type { Environment } from "../config";
import type { AppContext } from "../context";
import { renditions } from "../db/schema";
import { SANDBOX_LIMIT_S } from "../encoding/sandbox";
import { notFound } from "../http/errors";
import type { ProbeResult } from "../media/probe-parse";
import type { VideoRow } from "../videos/body";
import { videoKey } from "../videos/service";
import { nativeName } from "./languages";
import { firstPts } from "./mpegts";
import { videoCaptions } from "./service";
import { trackBlob } from "./tracks";
import { withTimestampMap } from "./vtt";
import { deliverable } from "../delivery/deliverable";

const CORS = { "access-control-allow-origin": "*", "cross-origin-resource-policy": "cross-origin" };
const VTT = "text/vtt; charset=utf-8";
const M3U8 = "application/vnd.apple.mpegurl";
/** Captions can be replaced or deleted: short caching. */
const CACHE = "public, max-age=60";
const FILE = /^([A-Za-z0-9-]+)\.(vtt|m3u8|hls\.vtt)$/;
const GROUP = "subs";

/** Seconds the delivered video lasts (the sandbox serves at most its first 30 s). */
function deliveredDuration(row: VideoRow): number {
  const probe = row.probe ? (JSON.parse(row.probe) as ProbeResult) : null;
  const d = probe?.durationS ?? 0;
  return Math.max(0.001, row.environment === "sandbox" ? Math.min(d, SANDBOX_LIMIT_S) : d);
}

/**
 * The master playlist's subtitle renditions: one EXT-X-MEDIA line per caption (the default one
 * DEFAULT=YES) and the GROUP-ID every variant must name, or none when the video has no captions.
 */
export function subtitleRenditions(app: AppContext, videoId: string): { lines: string[]; group: string | null } {
  const rows = videoCaptions(app, videoId);
  if (!rows.length) return { lines: [], group: null };
  const names = new Set<string>();
  const lines = rows.map((c) => {
    let name = nativeName(c.language).replace(/["\r\n]/g, "");
    if (names.has(name)) name = `${name} (${c.language})`; // NAME must be unique in a group
    names.add(name);
    const yes = (b: boolean) => (b ? "YES" : "NO");
    return `#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="${GROUP}",NAME="${name}",LANGUAGE="${c.language}",DEFAULT=${yes(c.isDefault)},AUTOSELECT=YES,FORCED=NO,URI="../captions/${c.language}.m3u8"`;
  });
  return { lines, group: GROUP };
}

/** First PTS of the video's HLS segments (all renditions share one timeline), or null. */
async function segmentStartPts(app: AppContext, row: VideoRow): Promise<number | null> {
  const first = app.db.select().from(renditions)
    .where(and(eq(renditions.videoId, row.id), eq(renditions.type, "hls"), eq(renditions.status, "encoded")))
    .orderBy(asc(renditions.position)).get();
  if (!first) return null;
  const playlist = app.storage.get(videoKey(row, "hls", first.quality, "index.m3u8"));
  const segment = playlist ? (await playlist.text()).split("\n").map((l) => l.trim()).find((l) => l && !l.startsWith("#")) : undefined;
  if (!segment || !/^[A-Za-z0-9_.-]+$/.test(segment)) return null;
  const blob = app.storage.get(videoKey(row, "hls", first.quality, segment));
  return blob ? firstPts(new Uint8Array(await blob.slice(0, 188 * 512).arrayBuffer())) : null;
}

/** `/vod/{id}/captions/{lang}.vtt` (the file as uploaded), `{lang}.m3u8` (its HLS subtitle playlist) and `{lang}.hls.vtt` (the file with its MPEG-TS timestamp map). */
export async function captionFile(app: AppContext, environment: Environment, videoId: string, file: string, access: Access): Promise<Response> {
  const { row, pass } = deliverable(app, environment, videoId, access);
  const m = FILE.exec(file);
  const blob = m && trackBlob(app, "captions", row, m[1]);
  if (!m || !blob) throw notFound("file");
  // A token spent on the subtitle playlist opens a session, so the WebVTT file it names works too.
  const session = settle(app, pass, m[2] === "m3u8");
  if (m[2] === "vtt") return new Response(blob, { headers: { ...CORS, "content-type": VTT, "cache-control": cacheControl(pass, CACHE) } });
  if (m[2] === "hls.vtt") {
    const pts = await segmentStartPts(app, row);
    const text = await blob.text();
    return new Response(pts === null ? text : withTimestampMap(text, pts), { headers: { ...CORS, "content-type": VTT, "cache-control": cacheControl(pass, CACHE) } });
  }
  const duration = deliveredDuration(row);
  const playlist = [
    "#EXTM3U",
    "#EXT-X-VERSION:3",
    `#EXT-X-TARGETDURATION:${Math.ceil(duration)}`,
    "#EXT-X-MEDIA-SEQUENCE:0",
    "#EXT-X-PLAYLIST-TYPE:VOD",
    `#EXTINF:${duration.toFixed(3)},`,
    `${m[1]}.hls.vtt`,
    "#EXT-X-ENDLIST",
  ];
  const text = playlist.join("\n") + "\n";
  // A private video's subtitle playlist hands its session on to the WebVTT file.
  if (session) return new Response(withSession(text, `/vod/${row.id}/captions/${file}`, session), { headers: { ...CORS, "content-type": M3U8, "cache-control": "private, no-cache" } });
  return new Response(text, { headers: { ...CORS, "content-type": M3U8, "cache-control": cacheControl(pass, CACHE) } });
}

/** `/vod/{id}/chapters/{lang}.vtt`: the chapter file as uploaded. */
export function chapterFile(app: AppContext, environment: Environment, videoId: string, file: string, access: Access): Response {
  const { row, pass } = deliverable(app, environment, videoId, access);
  const m = /^([A-Za-z0-9-]+)\.vtt$/.exec(file);
  const blob = m && trackBlob(app, "chapters", row, m[1]);
  if (!blob) throw notFound("file");
  settle(app, pass, false);
  return new Response(blob, { headers: { ...CORS, "content-type": VTT, "cache-control": cacheControl(pass, CACHE) } });
}
