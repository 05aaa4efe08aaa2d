import { eq } from "drizzle-orm";
import { randomUUID } from "node:crypto";
import { atom } from "../clock";
import type { AppContext, ScopeCtx } from "../context";
import { videos } from "../db/schema";
import { clipStartS } from "../encoding/clip";
import { SANDBOX_LIMIT_S } from "../encoding/sandbox";
import { ApiError, invalidAttribute, invalidFile } from "../http/errors";
import { MediaError, runFfmpeg, type ProbeResult } from "../media/ffmpeg";
import { thumbnailArgs, thumbnailTime } from "../media/args";
import { parseTimecode } from "../media/timecode";
import { receiveFile, type ReceivedFile, type UploadRequest } from "../uploads/receive";
import { videoBody, type VideoRow } from "./body";
import { findVideo, videoKey } from "./service";

const MAX_THUMBNAIL_BYTES = 8 * 1024 * 1024;

/** The image type from its first bytes: jpeg, png or webp, else null. */
export function imageType(head: Uint8Array): "image/jpeg" | "image/png" | "image/webp" | null {
  if (head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return "image/jpeg";
  if (head[0] === 0x89 && head[1] === 0x50 && head[2] === 0x4e && head[3] === 0x47) return "image/png";
  const ascii = new TextDecoder().decode(head.slice(0, 12));
  if (ascii.startsWith("RIFF") && ascii.slice(8, 12) === "WEBP") return "image/webp";
  return null;
}

function touch(app: AppContext, videoId: string, changes: Partial<VideoRow>): void {
  app.db.update(videos).set({ ...changes, updatedAt: atom(app.clock.now()) }).where(eq(videos.id, videoId)).run();
}

export type ImageType = NonNullable<ReturnType<typeof imageType>>;

/** What an uploaded image may be: its largest size, its types, and the error for any other file. */
export interface ImageRules {
  maxBytes: number;
  types: readonly ImageType[];
  refused: () => ApiError;
}

const THUMBNAIL_RULES: ImageRules = {
  maxBytes: MAX_THUMBNAIL_BYTES,
  types: ["image/jpeg", "image/png", "image/webp"],
  refused: () => invalidFile("Thumbnails must be JPEG, PNG or WebP."),
};

/** Receives an uploaded image into a temp file, refusing what `rules` do not allow (default: thumbnails, jpeg, png or webp up to 8 MiB). */
export async function receiveThumbnail(ctx: ScopeCtx, request: UploadRequest, rules: ImageRules = THUMBNAIL_RULES): Promise<ReceivedFile & { type: ImageType }> {
  const file = await receiveFile(ctx, request, rules.maxBytes);
  const type = imageType(new Uint8Array(await file.temp.blob().slice(0, 12).arrayBuffer()));
  if (!type || !rules.types.includes(type)) {
    await file.temp.abort();
    throw rules.refused();
  }
  return { ...file, type };
}

/** POST /videos/{id}/thumbnail: stores an uploaded jpeg, png or webp as the video's thumbnail. */
export async function uploadThumbnail(ctx: ScopeCtx, videoId: string, request: UploadRequest) {
  const row = findVideo(ctx, videoId);
  const file = await receiveThumbnail(ctx, request);
  try {
    // Moved and recorded in one synchronous step: an automatic pick the encode job is rendering
    // checks thumbnailCustom just before replacing the file, and must not land in between.
    file.temp.commitSync(videoKey(row, "thumbnail"));
    touch(ctx, videoId, { hasThumbnail: true, thumbnailCustom: true, thumbnailAt: null });
  } catch (err) {
    await file.temp.abort();
    throw err;
  }
  return videoBody(ctx, findVideo(ctx, videoId));
}

/**
 * Renders the frame at `atS` as the thumbnail (§8.3: outside the video, including its last tenth
 * of a second where no frame may start, → the first frame). `keep` is asked once the frame is
 * ready; false discards it (a newer thumbnail arrived meanwhile). Resolves to whether it was kept.
 */
export async function renderThumbnail(app: AppContext, row: VideoRow, atS: number, opts: { signal?: AbortSignal; keep?: () => boolean } = {}): Promise<boolean> {
  if ("missing" in app.media) throw new Error(app.media.missing);
  const probe = row.probe ? (JSON.parse(row.probe) as ProbeResult) : null;
  // A sandbox video is delivered cut to 30 s: a frame past that is not in it.
  const duration = probe ? (row.environment === "sandbox" ? Math.min(probe.durationS, SANDBOX_LIMIT_S) : probe.durationS) : null;
  const at = duration !== null ? thumbnailTime(duration, atS) : Math.max(0, atS);
  // One temporary name per render: the encode job and a PATCH may render at the same time.
  const temp = videoKey(row, `thumbnail.${randomUUID()}.tmp.jpg`);
  try {
    // A clipped video's timeline starts at the clip's start in the (whole) source. A source without
    // an index (MPEG-TS) with a lone keyframe has no frame to find past it: the first frame then.
    for (const time of at > 0 ? [at, 0] : [0]) {
      await runFfmpeg(app.media, thumbnailArgs(app.storage.localPath(videoKey(row, "source")), time + clipStartS(row), app.storage.localPath(temp, true)), { signal: opts.signal, nice: true });
      if (app.storage.size(temp) !== null) break;
    }
    if (app.storage.size(temp) === null) throw new MediaError(`ffmpeg found no frame at ${at} s (nor at the start) for the thumbnail`);
    if (opts.keep && !opts.keep()) return false;
    app.storage.move(temp, videoKey(row, "thumbnail"));
  } finally {
    await app.storage.delete(temp);
  }
  touch(app, row.id, { hasThumbnail: true });
  return true;
}

/** PATCH /videos/{id}/thumbnail: picks a frame now, or once the video is encoded. */
export async function pickThumbnail(ctx: ScopeCtx, videoId: string, timecode: string) {
  const row = findVideo(ctx, videoId);
  const probe = row.probe ? (JSON.parse(row.probe) as ProbeResult) : null;
  const at = parseTimecode(timecode, probe?.frameRate || 25);
  if (at === null) throw invalidAttribute("timecode", "This attribute must be a timecode: HH:MM:SS, HH:MM:SS.mmm, HH:MM:SS:ff or seconds.");
  if (row.playable) {
    // Marked first, so an automatic pick the encode job is rendering right now is discarded.
    touch(ctx, videoId, { thumbnailCustom: true, thumbnailAt: null });
    await renderThumbnail(ctx, row, at);
  } else {
    touch(ctx, videoId, { thumbnailAt: at, thumbnailCustom: true });
  }
  return videoBody(ctx, findVideo(ctx, videoId));
}
