import { eq } from "drizzle-orm";
import { atom } from "../clock";
import type { ScopeCtx } from "../context";
import { videos } from "../db/schema";
import { ApiError, notFound } from "../http/errors";
import type { TempFile } from "../media/storage";
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

/** 400 for an upload to a video that has its source: uploaded, or imported from a URL or another video (§2.4). */
const alreadyUploaded = (row: Pick<VideoRow, "sourceType">) => {
  const [slug, title] = row.sourceType === "copy" ? ["copied", "The source of the video is already copied."]
    : row.sourceType === "import" ? ["downloaded", "The source of the video is already downloaded."]
    : ["uploaded", "The video already has a source."];
  return new ApiError(400, `video-source-already-${slug}`, title, { name: "file", detail: "Create a new video to upload another file." });
};

const tooBig = () =>
  new ApiError(400, "uploaded-file-too-large", "The uploaded file is too large.", { name: "file", detail: "A video's source is limited to 20 GiB." });

const stateOf = (row: VideoRow): UploadState => (row.uploadState ? JSON.parse(row.uploadState) : emptyUploadState());

/** True once the video has its whole source (a ranged upload still in progress is `uploading`). */
export const hasSource = (row: VideoRow): boolean => row.ingestStatus !== null && row.ingestStatus !== "uploading";

type Tx = Parameters<Parameters<ScopeCtx["db"]["transaction"]>[0]>[0];

/** The row as it is now, inside the transaction; 404 when the video was deleted while its upload streamed in. */
function current(tx: Tx, videoId: string): VideoRow {
  const row = tx.select().from(videos).where(eq(videos.id, videoId)).get();
  if (!row) throw notFound("videoId");
  return row;
}

/**
 * In one transaction: checks the video still exists (404) and passes `check` (which throws to
 * refuse, or returns false when there is nothing left to do), moves the source file into place,
 * marks it `ingest` (uploaded, or ingested for imports) and queues its encode. A video deleted
 * meanwhile gets no file and no job. Returns false when `check` declined; the caller then discards its file.
 */
export function sourceArrived(
  ctx: ScopeCtx, videoId: string, source: TempFile, filesize: number, state: UploadState | null, check: (fresh: VideoRow) => boolean,
  ingest: "uploaded" | "ingested" = "uploaded",
): boolean {
  const now = ctx.clock.now();
  const done = ctx.db.transaction((tx) => {
    const fresh = current(tx, videoId);
    if (!check(fresh)) return false;
    source.commitSync(videoKey(fresh, "source"));
    tx.update(videos).set({
      ingestStatus: ingest,
      filesize,
      sourceType: fresh.sourceType ?? "upload",
      uploadState: state ? JSON.stringify(state) : null,
      updatedAt: atom(now),
      expiresAt: ctx.environment === "sandbox" ? now.getTime() + SANDBOX_RETENTION_MS : null,
    }).where(eq(videos.id, videoId)).run();
    ctx.queue.enqueue(tx, ENCODE_JOB, { videoId }, { maxAttempts: 3 });
    return true;
  });
  if (done) ctx.queue.notify();
  return done;
}

/**
 * Concatenates the chunks in order into a temp file, makes it the source, then removes the chunks.
 * Safe to run twice at once (a retried last chunk): the first to finish wins, the other stands down.
 */
async function assemble(ctx: ScopeCtx, row: VideoRow, state: UploadState): Promise<void> {
  const storage = ctx.storage;
  const temp = storage.tempFile();
  const finished = () => hasSource(ctx.db.transaction((tx) => current(tx, row.id))); // 404 once deleted
  try {
    for (const { key } of assemblyOrder(state)) {
      const blob = storage.get(videoKey(row, "chunks", key));
      if (!blob) {
        // Gone with the video (404), or used by a concurrent assembly that already finished.
        if (finished()) return await temp.abort();
        throw new Error(`chunk ${key} of ${row.id} is missing`);
      }
      for await (const bytes of blob.stream()) await temp.write(bytes);
    }
    await temp.end();
    if (!sourceArrived(ctx, row.id, temp, temp.size, state, (fresh) => !hasSource(fresh))) return await temp.abort();
  } catch (err) {
    await temp.abort();
    throw err;
  }
  await storage.delete(videoKey(row, "chunks"));
}

/** A whole file in one request (no Content-Range). */
async function storePlain(ctx: ScopeCtx, row: VideoRow, file: ReceivedFile) {
  if (file.size === 0) {
    throw new ApiError(400, "uploaded-file-empty", "The uploaded file is empty.", { name: "file", detail: "The file part has no bytes." });
  }
  // Checked again against the freshest row: a concurrent upload or a ranged one may have started since preflight.
  sourceArrived(ctx, row.id, file.temp, file.size, null, (fresh) => {
    if (hasSource(fresh)) throw alreadyUploaded(fresh);
    checkPlainUpload(stateOf(fresh));
    return true;
  });
}

/** One chunk of a ranged upload; the last one assembles the source and starts encoding. */
async function storeChunk(ctx: ScopeCtx, row: VideoRow, range: ContentRange, file: ReceivedFile) {
  let completed: UploadState | null = null;
  let duplicate = false;
  // Re-checked against the freshest state in one synchronous transaction: concurrent chunks of one
  // upload cannot both pass, and the chunk file is moved into place before the state records it.
  ctx.db.transaction((tx) => {
    const fresh = current(tx, row.id);
    const state = stateOf(fresh);
    if (isDuplicateChunk(state, range)) {
      // A retry is accepted without storing it again, but only if it holds what its range says. A
      // retried last chunk whose first try failed while assembling (the state is complete but the
      // source never arrived) assembles again.
      checkChunkSize(state, range, file.size);
      duplicate = true;
      if (isComplete(state) && !hasSource(fresh)) completed = state;
      return;
    }
    if (hasSource(fresh)) throw alreadyUploaded(fresh);
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
  if (duplicate) await file.temp.abort();
  if (completed) await assemble(ctx, row, completed);
}

/** Stores an uploaded file (whole or one chunk) into a video; a failure leaves nothing of this request behind. */
export async function storeUpload(ctx: ScopeCtx, row: VideoRow, range: ContentRange | null, file: ReceivedFile) {
  try {
    if (range) await storeChunk(ctx, row, range, file);
    else {
      if (hasSource(row)) throw alreadyUploaded(row);
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
    if (hasSource(row)) throw alreadyUploaded(row);
    checkPlainUpload(stateOf(row));
    return null;
  }
  const range = parseContentRange(contentRange);
  const state = stateOf(row);
  if (!isDuplicateChunk(state, range)) {
    if (hasSource(row)) throw alreadyUploaded(row);
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
