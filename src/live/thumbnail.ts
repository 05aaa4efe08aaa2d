import { eq } from "drizzle-orm";
import { atom } from "../clock";
import type { ScopeCtx } from "../context";
import { liveStreams } from "../db/schema";
import { ApiError } from "../http/errors";
import { receiveFile, type UploadRequest } from "../uploads/receive";
import { imageType } from "../videos/thumbnail";
import { liveKey, liveStreamBody } from "./body";
import { findLiveStream } from "./service";

const MAX_THUMBNAIL_BYTES = 8 * 1024 * 1024;

/** POST /live-streams/{id}/thumbnail: an uploaded jpeg, png or webp replaces the picture taken from the broadcast. */
export async function uploadLiveThumbnail(ctx: ScopeCtx, liveStreamId: string, request: UploadRequest) {
  const row = findLiveStream(ctx, liveStreamId);
  const file = await receiveFile(ctx, request, MAX_THUMBNAIL_BYTES);
  try {
    const head = new Uint8Array(await file.temp.blob().slice(0, 12).arrayBuffer());
    if (!imageType(head)) {
      throw new ApiError(400, "uploaded-file-invalid-file", "The uploaded file is not a supported image.", { name: "file", detail: "Thumbnails must be JPEG, PNG or WebP." });
    }
    file.temp.commitSync(liveKey(row, "thumbnail"));
  } catch (err) {
    await file.temp.abort();
    throw err;
  }
  ctx.db.update(liveStreams).set({ thumbnailCustom: true, updatedAt: atom(ctx.clock.now()) }).where(eq(liveStreams.id, row.id)).run();
  return liveStreamBody(ctx, findLiveStream(ctx, row.id));
}

/** DELETE /live-streams/{id}/thumbnail: removes the uploaded thumbnail (the live picture shows again). */
export async function deleteLiveThumbnail(ctx: ScopeCtx, liveStreamId: string) {
  const row = findLiveStream(ctx, liveStreamId);
  await ctx.storage.delete(liveKey(row, "thumbnail"));
  ctx.db.update(liveStreams).set({ thumbnailCustom: false, updatedAt: atom(ctx.clock.now()) }).where(eq(liveStreams.id, row.id)).run();
  return liveStreamBody(ctx, findLiveStream(ctx, row.id));
}
