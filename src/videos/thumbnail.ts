import { eq } from "drizzle-orm";
import { atom } from "../clock";
import type { AppContext, ScopeCtx } from "../context";
import { videos } from "../db/schema";
import { ApiError, invalidAttribute } from "../http/errors";
import { runFfmpeg, type ProbeResult } from "../media/ffmpeg";
import { thumbnailArgs } from "../media/args";
import { parseTimecode } from "../media/timecode";
import { receiveFile, type UploadRequest } from "../uploads/receive";
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

/** POST /videos/{id}/thumbnail: stores an uploaded jpeg, png or webp as the video's thumbnail. */
export async function uploadThumbnail(ctx: ScopeCtx, videoId: string, request: UploadRequest) {
  const row = findVideo(ctx, videoId);
  const file = await receiveFile(ctx, request, MAX_THUMBNAIL_BYTES);
  try {
    const head = new Uint8Array(await file.temp.blob().slice(0, 12).arrayBuffer());
    if (!imageType(head)) {
      throw new ApiError(400, "uploaded-file-invalid-file", "The uploaded file is not a supported image.", { name: "file", detail: "Thumbnails must be JPEG, PNG or WebP." });
    }
    await file.temp.commit(videoKey(row, "thumbnail"));
  } catch (err) {
    await file.temp.abort();
    throw err;
  }
  touch(ctx, videoId, { hasThumbnail: true, thumbnailCustom: true, thumbnailAt: null });
  return videoBody(ctx, findVideo(ctx, videoId));
}

/** Renders the frame at `atS` (clamped to the video, past the end = first frame) as the thumbnail. */
export async function renderThumbnail(app: AppContext, row: VideoRow, atS: number, signal?: AbortSignal): Promise<void> {
  if ("missing" in app.media) throw new Error(app.media.missing);
  const probe = row.probe ? (JSON.parse(row.probe) as ProbeResult) : null;
  const at = probe && atS >= probe.durationS ? 0 : Math.max(0, atS);
  const output = app.storage.localPath(videoKey(row, "thumbnail.tmp.jpg"), true);
  await runFfmpeg(app.media, thumbnailArgs(app.storage.localPath(videoKey(row, "source")), at, output), { signal, nice: true });
  await app.storage.move(videoKey(row, "thumbnail.tmp.jpg"), videoKey(row, "thumbnail"));
  touch(app, row.id, { hasThumbnail: true });
}

/** PATCH /videos/{id}/thumbnail: picks a frame now, or once the video is encoded. */
export async function pickThumbnail(ctx: ScopeCtx, videoId: string, timecode: string) {
  const row = findVideo(ctx, videoId);
  const probe = row.probe ? (JSON.parse(row.probe) as ProbeResult) : null;
  const at = parseTimecode(timecode, probe?.frameRate || 25);
  if (at === null) throw invalidAttribute("timecode", "This attribute must be a timecode: HH:MM:SS, HH:MM:SS.mmm, HH:MM:SS:ff or seconds.");
  if (row.playable) {
    await renderThumbnail(ctx, row, at);
    touch(ctx, videoId, { thumbnailCustom: true, thumbnailAt: null });
  } else {
    touch(ctx, videoId, { thumbnailAt: at, thumbnailCustom: true });
  }
  return videoBody(ctx, findVideo(ctx, videoId));
}
