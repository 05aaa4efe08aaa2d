import { and, desc, eq, isNull, or, sql } from "drizzle-orm";
import type { ScopeCtx } from "../context";
import { videos } from "../db/schema";
import { sha256Hex } from "../security";
import type { VideoRow } from "../videos/body";
import { findVideo, insertVideo, removeVideo } from "../videos/service";
import { parseContentRange, type ContentRange } from "./content-range";
import { receiveFile, type UploadRequest } from "./receive";
import { preflight, storeUpload } from "./service";

/**
 * Chunks sent with an upload token but without `videoId` (the official Node and Go clients do
 * this) are tied together by token, file name and range mode: the first chunk creates the video,
 * later ones find it while its upload is still in progress. The announced total is left out, so a
 * progressive `part N/*` … `part N/N` stays one upload. A new first chunk supersedes any earlier
 * unfinished upload under the same key, so an abandoned attempt never captures the next one's chunks.
 */
function correlationKey(tokenId: string, filename: string, range: ContentRange): string {
  return sha256Hex(`${tokenId}\n${filename}\n${range.mode}`);
}

const isFirstChunk = (range: ContentRange) => (range.mode === "bytes" ? range.from === 0 : range.part === 1);

/** The video a chunk without `videoId` belongs to; `created` when this request made it. */
function videoForChunk(ctx: ScopeCtx, tokenId: string, filename: string, range: ContentRange): { row: VideoRow; created: boolean } {
  const key = correlationKey(tokenId, filename, range);
  const pending = and(
    eq(videos.projectId, ctx.projectId), eq(videos.environment, ctx.environment), eq(videos.uploadCorrelation, key),
    or(isNull(videos.ingestStatus), eq(videos.ingestStatus, "uploading")),
  );
  if (!isFirstChunk(range)) {
    const latest = ctx.db.select().from(videos).where(pending).orderBy(desc(sql`${videos}.rowid`)).get();
    if (latest) return { row: latest, created: false };
  } else {
    ctx.db.update(videos).set({ uploadCorrelation: null }).where(pending).run();
  }
  return { row: insertVideo(ctx, { title: filename }, { uploadCorrelation: key, sourceName: filename }), created: true };
}

/** POST /upload?token=: creates the video (title = file name) or continues the one named or correlated. */
export async function uploadWithToken(ctx: ScopeCtx & { tokenId: string }, request: UploadRequest) {
  // The header is checked before the body, but the video is chosen after it: `videoId` may follow the file.
  const range = request.contentRange ? parseContentRange(request.contentRange) : null;
  const file = await receiveFile(ctx, request);
  // A video this request created is removed again when the upload is refused: a bad chunk leaves no empty video.
  let created: VideoRow | null = null;
  try {
    const filename = file.info.filename ?? "upload";
    let row: VideoRow;
    if (file.fields.videoId) row = findVideo(ctx, file.fields.videoId);
    else if (range) {
      const found = videoForChunk(ctx, ctx.tokenId, filename, range);
      row = found.row;
      if (found.created) created = row;
    } else row = created = insertVideo(ctx, { title: filename }, { sourceName: filename });
    preflight(row, request.contentRange);
    return await storeUpload(ctx, row, range, file);
  } catch (err) {
    await file.temp.abort();
    if (created) await removeVideo(ctx, created);
    throw err;
  }
}
