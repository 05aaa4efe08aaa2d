import { and, asc, eq } from "drizzle-orm";
import type { Environment } from "../config";
import type { AppContext } from "../context";
import { renditions } from "../db/schema";
import { notFound } from "../http/errors";
import { subtitleRenditions } from "../captions/delivery";
import { playerChapters } from "../chapters/service";
import { vodBase } from "../videos/body";
import { videoKey } from "../videos/service";
import { recordVideoDelivery } from "../usage/record";
import { cacheControl, settle, tokenSession, type Access } from "../private/access";
import { deliverable } from "./deliverable";
import { playerPageResponse } from "./player-page";
import { withSession } from "../private/playlist";

const SEGMENT_CACHE = "public, max-age=31536000, immutable";
const CORS = { "access-control-allow-origin": "*", "cross-origin-resource-policy": "cross-origin" };

/**
 * The master playlist lists only encoded renditions; 202 with an empty body until the first one
 * (a token is not spent on a 202). A private video's URIs carry the session, opened here when the
 * request came with a token.
 */
export function masterPlaylist(app: AppContext, environment: Environment, videoId: string, access: Access): Response {
  const { row, pass } = deliverable(app, environment, videoId, access);
  const encoded = app.db.select().from(renditions)
    .where(and(eq(renditions.videoId, videoId), eq(renditions.type, "hls"), eq(renditions.status, "encoded")))
    .orderBy(asc(renditions.position)).all();
  if (!row.playable || !encoded.length) return new Response(null, { status: 202, headers: { ...CORS, "cache-control": "no-store" } });
  // Captions ride along as a subtitle group every variant names (players list them as tracks).
  const subtitles = subtitleRenditions(app, videoId);
  const lines = ["#EXTM3U", "#EXT-X-VERSION:3", "#EXT-X-INDEPENDENT-SEGMENTS", ...subtitles.lines];
  for (const r of encoded) {
    lines.push(`#EXT-X-STREAM-INF:BANDWIDTH=${r.bandwidth},RESOLUTION=${r.width}x${r.height}${r.codecs ? `,CODECS="${r.codecs}"` : ""},NAME="${r.quality}"${subtitles.group ? `,SUBTITLES="${subtitles.group}"` : ""}`);
    lines.push(`${r.quality}/index.m3u8`);
  }
  const session = settle(app, pass, true);
  const text = lines.join("\n") + "\n";
  return new Response(session ? withSession(text, `/vod/${row.id}/hls/manifest.m3u8`, session) : text, {
    headers: { ...CORS, "content-type": "application/vnd.apple.mpegurl", "cache-control": "no-cache" },
  });
}

const MEDIA_TYPES: Record<string, string> = { m3u8: "application/vnd.apple.mpegurl", ts: "video/mp2t", m4s: "video/iso.segment", mp4: "video/mp4", aac: "audio/aac" };

/** A rendition's playlist or segment; segments never change once written, so they cache forever. */
export async function renditionFile(app: AppContext, environment: Environment, videoId: string, quality: string, file: string, access: Access): Promise<Response> {
  const { row, pass } = deliverable(app, environment, videoId, access);
  const rendition = app.db.select().from(renditions)
    .where(and(eq(renditions.videoId, videoId), eq(renditions.type, "hls"), eq(renditions.quality, quality), eq(renditions.status, "encoded"))).get();
  const ext = /^[A-Za-z0-9_-]+\.([a-z0-9]+)$/.exec(file)?.[1];
  const blob = rendition && ext && MEDIA_TYPES[ext] ? app.storage.get(videoKey(row, "hls", quality, file)) : null;
  if (!blob) throw notFound("file");
  const session = settle(app, pass, false);
  recordVideoDelivery(app, row, { hls: { quality, file } }, pass.head);
  if (session && ext === "m3u8") {
    // Private: the segment URIs must carry the session too; such a playlist is per viewer.
    return new Response(withSession(await blob.text(), `/vod/${row.id}/hls/${quality}/${file}`, session), {
      headers: { ...CORS, "content-type": MEDIA_TYPES.m3u8, "cache-control": "private, no-cache" },
    });
  }
  return new Response(blob, {
    headers: { ...CORS, "content-type": MEDIA_TYPES[ext!], "cache-control": cacheControl(pass, ext === "m3u8" ? "public, max-age=60" : SEGMENT_CACHE) },
  });
}

/**
 * Parses a single `bytes=` range against a size; null when absent or ignored, "invalid" when
 * unsatisfiable. RFC 9110 §14.2: a range unit other than bytes MUST be ignored, and a server MAY
 * ignore a set of several ranges: both get the whole file (200), as players expect.
 */
export function byteRange(header: string | null, size: number): { start: number; end: number } | null | "invalid" {
  if (!header) return null;
  const value = header.trim();
  if (!/^bytes=/i.test(value) || value.includes(",")) return null;
  const m = /^bytes=\s*(\d*)-(\d*)\s*$/i.exec(value);
  if (!m || (m[1] === "" && m[2] === "")) return "invalid";
  let start: number;
  let end: number;
  if (m[1] === "") {
    start = Math.max(0, size - Number(m[2]));
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === "" ? size - 1 : Math.min(Number(m[2]), size - 1);
  }
  return start > end || start >= size ? "invalid" : { start, end };
}

/**
 * `attachment` named after the title: the UTF-8 name in `filename*` (RFC 6266), and an ASCII
 * `filename` for old clients, since a header value may only hold Latin-1 (Bun throws on more: a
 * Japanese title made ?dl=1 a 500).
 */
export function attachment(title: string, fallback: string): string {
  // Whole code points (never half an emoji's surrogate pair), at most 100.
  const name = Array.from(title.replace(/[^\p{L}\p{N} ._-]+/gu, "").trim()).slice(0, 100).join("").trim() || fallback;
  const ascii = name.normalize("NFKD").replace(/[\u0300-\u036f]/g, "").replace(/[^\x20-\x7e]+/g, "_").replace(/["\\]/g, "") || fallback;
  return `attachment; filename="${ascii}.mp4"; filename*=UTF-8''${encodeURIComponent(name)}.mp4`;
}

/** The MP4 with Range support; `dl` forces a download named after the title. */
export function mp4File(app: AppContext, environment: Environment, videoId: string, rangeHeader: string | null, download: boolean, access: Access): Response {
  const { row, pass } = deliverable(app, environment, videoId, access);
  const mp4 = app.db.select().from(renditions).where(and(eq(renditions.videoId, videoId), eq(renditions.type, "mp4"), eq(renditions.status, "encoded"))).get();
  const blob = row.mp4Support && mp4 ? app.storage.get(videoKey(row, "mp4", "source.mp4")) : null;
  if (!blob) throw notFound("videoId");
  const headers: Record<string, string> = { ...CORS, "content-type": "video/mp4", "accept-ranges": "bytes", "cache-control": cacheControl(pass, "public, max-age=3600") };
  if (download) headers["content-disposition"] = attachment(row.title, row.id);
  const range = byteRange(rangeHeader, blob.size);
  if (range !== "invalid") settle(app, pass, false);
  if (range !== "invalid") recordVideoDelivery(app, row, { mp4: { bytes: range ? range.end - range.start + 1 : blob.size, size: blob.size } }, pass.head);
  if (range === "invalid") return new Response(null, { status: 416, headers: { ...headers, "content-range": `bytes */${blob.size}` } });
  if (!range) return new Response(blob, { headers });
  return new Response(blob.slice(range.start, range.end + 1), {
    status: 206,
    headers: { ...headers, "content-range": `bytes ${range.start}-${range.end}/${blob.size}` },
  });
}

/** The thumbnail (uploaded or picked), with its real image type. */
export async function thumbnailFile(app: AppContext, environment: Environment, videoId: string, access: Access): Promise<Response> {
  const { row, pass } = deliverable(app, environment, videoId, access);
  const blob = row.hasThumbnail ? app.storage.get(videoKey(row, "thumbnail")) : null;
  if (!blob) throw notFound("videoId");
  settle(app, pass, false);
  const head = new Uint8Array(await blob.slice(0, 12).arrayBuffer());
  const type = head[0] === 0x89 ? "image/png" : head[0] === 0x52 ? "image/webp" : "image/jpeg";
  return new Response(blob, { headers: { ...CORS, "content-type": type, "cache-control": cacheControl(pass, "public, max-age=60") } });
}

/** The embeddable player page for a video, listing its chapters (see playerPageResponse). */
export async function playerPage(app: AppContext, environment: Environment, videoId: string, access: Access): Promise<Response> {
  const { row, pass } = deliverable(app, environment, videoId, access);
  const chapters = await playerChapters(app, row);
  const base = vodBase(app, environment, videoId);
  return playerPageResponse(app, environment, pass, {
    owner: row,
    title: row.title,
    hlsUrl: `${base}/hls/manifest.m3u8`,
    posterUrl: row.hasThumbnail ? `${base}/thumbnail.jpg` : null,
    live: false,
    chapters: chapters?.chapters,
  });
}

/** GET /vod/{id}/token/{token}/session: spends the token for a 24-hour `avh` session. */
export function privateSession(app: AppContext, environment: Environment, videoId: string, access: Access) {
  return tokenSession(app, deliverable(app, environment, videoId, access).pass, access);
}
