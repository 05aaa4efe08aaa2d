import { eq } from "drizzle-orm";
import { atom } from "../clock";
import type { ScopeCtx } from "../context";
import { videos } from "../db/schema";
import { ApiError } from "../http/errors";
import { videoBody, type VideoRow } from "../videos/body";
import { ENCODE_JOB, findVideo, videoKey } from "../videos/service";
import {
  assemblyOrder, checkChunkSize, checkPlainUpload, checkRangeHeader, chunkKey, emptyUploadState, isComplete,
  isDuplicateChunk, parseContentRange, receivedBytes, recordChunk, type ContentRange, type UploadState,
} from "./content-range";
import { receiveFile, type ReceivedFile, type UploadRequest } from "./receive";

/** Vidhost's ceiling for one video's source (DESIGN.md seed rules). */
export const MAX_SOURCE_BYTES = 20 * 1024 ** 3;
const SANDBOX_RETENTION_MS = 24 * 3600 * 1000;

const alreadyUploaded = () =>
  new ApiError(400, "video-source-already-uploaded", "The video already has a source.", { name: "file", detail: "Create a new video to upload another file." });

const tooBig = () =>
  new ApiError(400, "uploaded-file-too-large", "The uploaded file is too large.", { name: "file", detail: "A video's source is limited to 20 GiB." });

const stateOf = (row: VideoRow): UploadState => (row.uploadState ? JSON.parse(row.uploadState) : emptyUploadState());

/** True once the video has its whole source (a ranged upload still in progress is `uploading`). */
export const hasSource = (row: VideoRow): boolean => row.ingestStatus !== null && row.ingestStatus !== "uploading";

/** Marks the source as arrived and queues its encode in the same transaction. */
function sourceArrived(ctx: ScopeCtx, row: VideoRow, filesize: number, state: UploadState | null): void {
  const now = ctx.clock.now();
  ctx.db.transaction((tx) => {
    tx.update(videos).set({
      ingestStatus: "uploaded",
      filesize,
      sourceType: row.sourceType ?? "upload",
      uploadState: state ? JSON.stringify(state) : null,
      updatedAt: atom(now),
      expiresAt: ctx.environment === "sandbox" ? now.getTime() + SANDBOX_RETENTION_MS : null,
    }).where(eq(videos.id, row.id)).run();
    ctx.queue.enqueue(tx, ENCODE_JOB, { videoId: row.id }, { maxAttempts: 3 });
  });
  ctx.queue.notify();
}

/** Concatenates the chunks in order into the source object, then removes them. */
async function assemble(ctx: ScopeCtx, row: VideoRow, state: UploadState): Promise<number> {
  const names = assemblyOrder(state).map((piece) => piece.key);
  const storage = ctx.storage;
  async function* concatenated() {
    for (const name of names) {
      const blob = storage.get(videoKey(row, "chunks", name));
      if (!blob) throw new Error(`chunk ${name} of ${row.id} is missing`);
      yield* blob.stream();
    }
  }
  const size = await storage.put(videoKey(row, "source"), concatenated());
  await storage.delete(videoKey(row, "chunks"));
  return size;
}

/** A whole file in one request (no Content-Range). */
async function storePlain(ctx: ScopeCtx, row: VideoRow, file: ReceivedFile) {
  checkPlainUpload(stateOf(row));
  if (file.size === 0) {
    throw new ApiError(400, "uploaded-file-empty", "The uploaded file is empty.", { name: "file", detail: "The file part has no bytes." });
  }
  await file.temp.commit(videoKey(row, "source"));
  sourceArrived(ctx, row, file.size, null);
}

/** One chunk of a ranged upload; the last one assembles the source and starts encoding. */
async function storeChunk(ctx: ScopeCtx, row: VideoRow, range: ContentRange, file: ReceivedFile) {
  let completed: UploadState | null = null;
  let duplicate = false;
  // Re-checked against the freshest state in one synchronous transaction: concurrent chunks of one
  // upload cannot both pass, and the chunk file is moved into place before the state records it.
  ctx.db.transaction((tx) => {
    const fresh = tx.select().from(videos).where(eq(videos.id, row.id)).get()!;
    const state = stateOf(fresh);
    if (isDuplicateChunk(state, range)) {
      // A retry is accepted without storing it again, but only if it holds what its range says.
      checkChunkSize(state, range, file.size);
      duplicate = true;
      return;
    }
    if (hasSource(fresh)) throw alreadyUploaded();
    checkRangeHeader(state, range);
    checkChunkSize(state, range, file.size);
    const next = recordChunk(state, range, file.size);
    if (receivedBytes(next) > MAX_SOURCE_BYTES || (next.totalBytes ?? 0) > MAX_SOURCE_BYTES) throw tooBig();
    file.temp.commitSync(videoKey(row, "chunks", chunkKey(range)));
    tx.update(videos).set({
      ingestStatus: "uploading", uploadState: JSON.stringify(next), sourceName: fresh.sourceName ?? file.info.filename, updatedAt: atom(ctx.clock.now()),
    })
      .where(eq(videos.id, row.id)).run();
    if (isComplete(next)) completed = next;
  });
  if (duplicate) {
    await file.temp.abort();
    return;
  }
  if (completed) {
    const size = await assemble(ctx, row, completed);
    sourceArrived(ctx, row, size, completed);
  }
}

/** Stores an uploaded file (whole or one chunk) into a video; a failure leaves nothing of this request behind. */
export async function storeUpload(ctx: ScopeCtx, row: VideoRow, range: ContentRange | null, file: ReceivedFile) {
  try {
    if (range) await storeChunk(ctx, row, range, file);
    else {
      if (hasSource(row)) throw alreadyUploaded();
      await storePlain(ctx, row, file);
    }
  } catch (err) {
    await file.temp.abort();
    throw err;
  }
  return videoBody(ctx, findVideo(ctx, row.id));
}

/** Validates the Content-Range header (if any) before any byte of the body is read. */
export function preflight(row: VideoRow, contentRange: string | null): ContentRange | null {
  if (!contentRange) {
    if (hasSource(row)) throw alreadyUploaded();
    checkPlainUpload(stateOf(row));
    return null;
  }
  const range = parseContentRange(contentRange);
  const state = stateOf(row);
  if (!isDuplicateChunk(state, range)) {
    if (hasSource(row)) throw alreadyUploaded();
    checkRangeHeader(state, range);
  }
  return range;
}

/** POST /videos/{id}/source: multipart upload, whole or chunked by bytes or parts. */
export async function uploadSource(ctx: ScopeCtx, videoId: string, request: UploadRequest) {
  const row = findVideo(ctx, videoId);
  const range = preflight(row, request.contentRange);
  const file = await receiveFile(ctx, request);
  return storeUpload(ctx, row, range, file);
}
