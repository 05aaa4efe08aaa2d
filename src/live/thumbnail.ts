import { eq } from "drizzle-orm";
import { atom } from "../clock";
import type { ScopeCtx } from "../context";
import { liveStreams } from "../db/schema";
import type { UploadRequest } from "../uploads/receive";
import { receiveThumbnail } from "../videos/thumbnail";
import { liveKey, liveStreamBody } from "./body";
import { findLiveStream } from "./service";

/** POST /live-streams/{id}/thumbnail: an uploaded jpeg, png or webp replaces the picture taken from the broadcast. */
export async function uploadLiveThumbnail(ctx: ScopeCtx, liveStreamId: string, request: UploadRequest) {
  const row = findLiveStream(ctx, liveStreamId);
  const file = await receiveThumbnail(ctx, request);
  try {
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
