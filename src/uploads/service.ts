import type { ScopeCtx } from "../context";
import { ApiError } from "../http/errors";
import { videoBody, type VideoRow } from "../videos/body";
import { findVideo } from "../videos/service";
import { openChunkSink, storedChunk, storeChunk, type ChunkSink } from "./chunks";
import { checkPlainUpload, checkRangeHeader, isDuplicateChunk, parseContentRange, type ContentRange } from "./content-range";
import type { FileSink } from "./multipart";
import { MAX_REQUEST_FILE_BYTES, receiveFile, type ReceivedFile, type UploadRequest } from "./receive";
import { alreadyUploaded, hasSource, sourceArrived, stateOf } from "./source";


/** A whole file in one request (no Content-Range). */
async function storePlain(ctx: ScopeCtx, row: VideoRow, file: ReceivedFile) {
  if (hasSource(row)) throw alreadyUploaded(row);
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

/** Runs `store`, and on any failure drops what the request received, so nothing of it is left behind; answers the video. */
async function storing<S extends FileSink>(ctx: ScopeCtx, row: VideoRow, file: ReceivedFile<S>, store: () => Promise<void>) {
  try {
    await store();
  } catch (err) {
    await file.temp.abort();
    throw err;
  }
  return videoBody(ctx, findVideo(ctx, row.id));
}

/** Stores a file received into a temp file (whole, or one chunk) into a video; a failure leaves nothing of this request behind. */
export async function storeUpload(ctx: ScopeCtx, row: VideoRow, range: ContentRange | null, file: ReceivedFile) {
  if (!range) return storing(ctx, row, file, () => storePlain(ctx, row, file));
  const chunk: ReceivedFile<ChunkSink> = { ...file, temp: storedChunk(row, file.temp) };
  return storing(ctx, row, chunk, () => storeChunk(ctx, row, range, chunk));
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
  if (!range) return storeUpload(ctx, row, null, await receiveFile(ctx, request));
  // The video is known before the body, so a chunk may go straight into the partial source.
  const file = await receiveFile(ctx, request, MAX_REQUEST_FILE_BYTES, () => openChunkSink(ctx, row, range));
  return storing(ctx, row, file, () => storeChunk(ctx, row, range, file));
}
