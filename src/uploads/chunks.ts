// Progressive uploads (Content-Range) on disk. A chunk whose place in the file is known before its
// body is read goes straight into the video's partial source at that place, so completing the
// upload is a rename, not a copy. Any other chunk (a part after a gap, a retried or raced one, or
// one sent while another request holds the partial source) is stored as a file of its own and
// copied in at its place when the upload completes. The upload state (`upload_state`) says which
// is which, so nothing depends on what the process remembers: a restart between chunks is fine.
//
// Only bytes recorded in the state count. A chunk cut off mid-body leaves its bytes in the partial
// source unrecorded (and cuts the file back), so its retry simply writes them again; a retried
// byte range already recorded is not stored at all.
import { eq } from "drizzle-orm";
import { atom } from "../clock";
import type { ScopeCtx } from "../context";
import { videos } from "../db/schema";
import type { ExclusiveFile, TempFile } from "../media/storage";
import type { VideoRow } from "../videos/body";
import { videoKey } from "../videos/service";
import {
  assemblyOrder, CHUNK_MAX_BYTES, checkChunkSize, checkRangeHeader, chunkKey, chunkOffset, inPlaceEnd, isComplete,
  isDuplicateChunk, receivedBytes, recordChunk, type ContentRange, type UploadState,
} from "./content-range";
import type { FileSink } from "./multipart";
import type { ReceivedFile } from "./receive";
import { alreadyUploaded, current, hasSource, MAX_SOURCE_BYTES, sourceArrived, stateOf, tooBig } from "./source";

/** Where one chunk's bytes go: into the partial source (`inPlace`) or a temp file of their own. */
export interface ChunkSink extends FileSink {
  /** Bytes received. */
  readonly size: number;
  readonly inPlace: boolean;
  /** Inside the transaction recording the chunk: keeps its bytes (a temp file moves to the chunk's key). */
  keepSync(key: string): void;
}

const partialKey = (row: VideoRow) => videoKey(row, "chunks", "partial");

/** A chunk received into a temp file, kept as a chunk file beside the partial source. */
export function storedChunk(row: VideoRow, temp: TempFile): ChunkSink {
  return {
    get size() {
      return temp.size;
    },
    inPlace: false,
    write: (chunk) => temp.write(chunk),
    end: () => temp.end(),
    abort: () => temp.abort(),
    keepSync: (key) => temp.commitSync(videoKey(row, "chunks", key)),
  };
}

/**
 * A chunk written into the held partial source from `offset` on, at most `limit` bytes (more are
 * counted for the size check, not written). The file stays held until the chunk is kept or
 * refused, so no other request writes there meanwhile; refused or cut off, the file is cut back
 * to `cutBack`, the end of what was recorded before.
 */
function inPlaceChunk(file: ExclusiveFile, offset: number, limit: number, cutBack: number): ChunkSink {
  let size = 0;
  let open = true;
  const release = () => {
    if (open) file.close();
    open = false;
  };
  return {
    get size() {
      return size;
    },
    inPlace: true,
    write(chunk) {
      // Taken over by the completion: every chunk is in already, this one's bytes are not wanted.
      if (file.takenOver) throw alreadyUploaded({ sourceType: "upload" });
      const room = Math.min(chunk.byteLength, Math.max(0, limit - size));
      if (room > 0) file.write(room === chunk.byteLength ? chunk : chunk.subarray(0, room), offset + size);
      size += chunk.byteLength;
    },
    async end() {},
    async abort() {
      if (!open) return;
      try {
        if (!file.takenOver) file.truncate(cutBack);
      } finally {
        release();
      }
    },
    keepSync() {
      // Only the completion takes the file over, and only once every chunk is recorded.
      if (file.takenOver) throw new Error("the partial source was taken over before this chunk was recorded");
      release();
    },
  };
}

/**
 * Opens where a chunk's body goes, once its file part starts. The row is read again here,
 * synchronously with the open, because the state may have moved on since the header was checked
 * and a video deleted meanwhile must not get its folder back.
 */
export function openChunkSink(ctx: ScopeCtx, row: VideoRow, range: ContentRange): ChunkSink {
  const fresh = ctx.db.select().from(videos).where(eq(videos.id, row.id)).get();
  const stored = () => storedChunk(row, ctx.storage.tempFile());
  if (!fresh || hasSource(fresh)) return stored();
  const state = stateOf(fresh);
  const offset = chunkOffset(state, range);
  if (offset === null) return stored();
  try {
    checkRangeHeader(state, range);
  } catch {
    return stored(); // refused again when it is recorded
  }
  const file = ctx.storage.openExclusive(partialKey(fresh));
  if (!file) return stored();
  const limit = range.mode === "bytes" ? range.to - range.from + 1 : CHUNK_MAX_BYTES;
  return inPlaceChunk(file, offset, limit, Math.max(offset, inPlaceEnd(state)));
}

/**
 * Makes the partial source whole and the video's source: chunks stored as files of their own are
 * copied in at their place, the file is cut to the source's size and moved. Safe to run twice at
 * once (a retried last chunk): the later run takes the partial source over, the earlier stands down.
 */
async function finishUpload(ctx: ScopeCtx, row: VideoRow, state: UploadState): Promise<void> {
  const storage = ctx.storage;
  const partial = partialKey(row);
  const finished = () => hasSource(ctx.db.transaction((tx) => current(tx, row.id))); // 404 once deleted
  // From here to the take-over all is synchronous: no other completion runs in between.
  if (finished()) return;
  const pieces = assemblyOrder(state);
  if (pieces.some((p) => p.inPlace) && storage.size(partial) === null) {
    // Only a crash between moving the finished file and recording it gets here: take it back.
    if (storage.size(videoKey(row, "source")) === null) throw new Error(`the partial source of ${row.id} is missing`);
    storage.move(videoKey(row, "source"), partial);
  }
  const file = storage.openExclusive(partial, true)!;
  try {
    for (const piece of pieces) {
      if (piece.inPlace) continue;
      const blob = storage.get(videoKey(row, "chunks", piece.key));
      if (!blob) {
        if (finished()) return; // a concurrent completion already used it
        throw new Error(`chunk ${piece.key} of ${row.id} is missing`);
      }
      let at = piece.offset;
      for await (const bytes of blob.stream()) {
        if (file.takenOver) return;
        file.write(bytes, at);
        at += bytes.byteLength;
      }
    }
    if (file.takenOver) return;
    const size = receivedBytes(state);
    file.truncate(size);
    if (!sourceArrived(ctx, row.id, file, size, state, (fresh) => !hasSource(fresh))) return;
  } finally {
    file.close();
  }
  await storage.delete(videoKey(row, "chunks"));
}

/** One chunk of a ranged upload: recorded with its bytes; the last one completes the source and starts encoding. */
export async function storeChunk(ctx: ScopeCtx, row: VideoRow, range: ContentRange, file: ReceivedFile<ChunkSink>): Promise<void> {
  let completed: UploadState | null = null;
  let duplicate = false;
  // Re-checked against the freshest state in one synchronous transaction: concurrent chunks of one
  // upload cannot both pass, and the chunk's bytes are kept before the state records them.
  ctx.db.transaction((tx) => {
    const fresh = current(tx, row.id);
    const state = stateOf(fresh);
    if (isDuplicateChunk(state, range)) {
      // A retry is accepted without storing it again, but only if it holds what its range says. A
      // retried last chunk whose first try failed while completing (the state is complete but the
      // source never arrived) completes again.
      checkChunkSize(state, range, file.size);
      duplicate = true;
      if (isComplete(state) && !hasSource(fresh)) completed = state;
      return;
    }
    if (hasSource(fresh)) throw alreadyUploaded(fresh);
    checkRangeHeader(state, range);
    checkChunkSize(state, range, file.size);
    const next = recordChunk(state, range, file.size, file.temp.inPlace);
    if (receivedBytes(next) > MAX_SOURCE_BYTES || (next.totalBytes ?? 0) > MAX_SOURCE_BYTES) throw tooBig();
    file.temp.keepSync(chunkKey(range));
    tx.update(videos).set({
      ingestStatus: "uploading", uploadState: JSON.stringify(next), sourceName: fresh.sourceName ?? file.info.filename, updatedAt: atom(ctx.clock.now()),
    })
      .where(eq(videos.id, row.id)).run();
    if (isComplete(next)) completed = next;
  });
  if (duplicate) await file.temp.abort();
  if (completed) await finishUpload(ctx, row, completed);
}
