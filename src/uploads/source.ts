// What every way of uploading a source shares: the upload state of a row, the checks made against
// the freshest row, and the one transaction that makes a file the video's source.
import { eq } from "drizzle-orm";
import { atom } from "../clock";
import type { AppContext } from "../context";
import { videos } from "../db/schema";
import { ApiError, notFound } from "../http/errors";
import type { StorageKey } from "../media/storage";
import type { VideoRow } from "../videos/body";
import { ENCODE_JOB, videoKey } from "../videos/service";
import { emptyUploadState, type UploadState } from "./content-range";
import type { Tx } from "../db/client";

/** Vidhost's ceiling for one video's source (DESIGN.md seed rules). */
export const MAX_SOURCE_BYTES = 20 * 1024 ** 3;
const SANDBOX_RETENTION_MS = 24 * 3600 * 1000;

/** 400 for an upload to a video that has its source: uploaded, or imported from a URL or another video (§2.4). */
export const alreadyUploaded = (row: Pick<VideoRow, "sourceType">) => {
  const [slug, title] = row.sourceType === "copy" ? ["copied", "The source of the video is already copied."]
    : row.sourceType === "import" ? ["downloaded", "The source of the video is already downloaded."]
    : ["uploaded", "The video already has a source."];
  return new ApiError(400, `video-source-already-${slug}`, title, { name: "file", detail: "Create a new video to upload another file." });
};

/** 400 `uploaded-file-too-large` for a source over MAX_SOURCE_BYTES. */
export const tooBig = () =>
  new ApiError(400, "uploaded-file-too-large", "The uploaded file is too large.", { name: "file", detail: "A video's source is limited to 20 GiB." });

/** The row's progressive-upload state (empty when none started). */
export const stateOf = (row: VideoRow): UploadState => (row.uploadState ? JSON.parse(row.uploadState) : emptyUploadState());

/** True once the video has its whole source (a ranged upload still in progress is `uploading`). */
export const hasSource = (row: VideoRow): boolean => row.ingestStatus !== null && row.ingestStatus !== "uploading";


/** The row as it is now, inside the transaction; 404 when the video was deleted while its upload streamed in. */
export function current(tx: Tx, videoId: string): VideoRow {
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
  ctx: Pick<AppContext, "db" | "clock" | "queue">, videoId: string, source: { commitSync(key: StorageKey): void }, filesize: number, state: UploadState | null, check: (fresh: VideoRow) => boolean,
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
      expiresAt: fresh.environment === "sandbox" ? now.getTime() + SANDBOX_RETENTION_MS : null,
    }).where(eq(videos.id, videoId)).run();
    ctx.queue.enqueue(tx, ENCODE_JOB, { videoId }, { maxAttempts: 3 });
    return true;
  });
  if (done) ctx.queue.notify();
  return done;
}
