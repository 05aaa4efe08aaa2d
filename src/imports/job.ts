// The import job: fetch the source (download a URL or copy another video's file) into a temp file,
// check it is a video, then hand it to the same step a finished upload uses, which stores it and
// queues the encode. Failures end in a failed video with a reason in /status, like a bad upload.
import { and, eq } from "drizzle-orm";
import type { AppContext, ScopeCtx } from "../context";
import { videos } from "../db/schema";
import { failEncoding, planRenditions } from "../encoding/renditions";
import type { JobHandler } from "../jobs/queue";
import { MediaError, probe } from "../media/ffmpeg";
import { ladderFor } from "../media/ladder";
import type { TempFile } from "../media/storage";
import { sourceArrived } from "../uploads/service";
import type { VideoRow } from "../videos/body";
import { IMPORT_JOB, videoKey } from "../videos/service";
import { download, ImportError, type DownloadLimits } from "./download";
import { isCopy } from "./service";

/** Redirects followed per download, each one checked like the first URL. */
const MAX_REDIRECTS = 5;

const limits = (app: AppContext): DownloadLimits => ({
  maxBytes: app.config.importMaxBytes,
  timeoutMs: app.config.importTimeoutMs,
  idleMs: app.config.importIdleTimeoutMs,
  maxRedirects: MAX_REDIRECTS,
  allowPrivate: app.config.importAllowPrivate,
});

/** Streams the source file of the video being copied (same project and environment) into `temp`. */
async function copySource(app: AppContext, row: VideoRow, from: string, temp: TempFile): Promise<void> {
  const original = app.db.select().from(videos)
    .where(and(eq(videos.id, from), eq(videos.projectId, row.projectId), eq(videos.environment, row.environment))).get();
  if (!original) throw new ImportError("The video to copy was deleted before its source could be copied.", false);
  const blob = app.storage.get(videoKey(original, "source"));
  if (!blob) throw new ImportError("The video to copy has no source file.", false);
  if (blob.size > app.config.importMaxBytes) throw new ImportError("The video to copy is larger than a video's source may be.", false);
  for await (const chunk of blob.stream()) await temp.write(chunk);
}

/** Ends the video as failed, with `reason` shown as the status's failureReason. */
function failImport(app: AppContext, videoId: string, reason: string): void {
  const row = app.db.select().from(videos).where(eq(videos.id, videoId)).get();
  if (!row) return;
  // Nothing was probed: one 240p rendition stands for the output that will never come (as for a bad upload).
  planRenditions(app, row, ladderFor({ width: 426, height: 240 }));
  failEncoding(app, videoId, reason);
}

/** Fetches, checks and hands over one import; throws ImportError or MediaError with a readable reason. */
async function fetchSource(app: AppContext, row: VideoRow, signal: AbortSignal): Promise<boolean> {
  const from = row.importFrom ?? "";
  const temp = app.storage.tempFile();
  try {
    if (isCopy(from)) await copySource(app, row, from, temp);
    else await download(new URL(from), temp, limits(app), signal);
    await temp.end();
    if ("missing" in app.media) throw new MediaError(app.media.missing);
    try {
      await probe(app.media, temp.localPath, signal);
    } catch (err) {
      if (err instanceof MediaError && !signal.aborted) throw new MediaError(isCopy(from) ? err.reason : `The downloaded file is not a usable video: ${err.reason}`);
      throw err;
    }
    const scope: ScopeCtx = { ...app, projectId: row.projectId, environment: row.environment, apiKeyId: "" };
    // Only the first attempt to finish moves its file in; a video deleted meanwhile takes none.
    const placed = sourceArrived(scope, row.id, temp, temp.size, null, (fresh) => fresh.ingestStatus === "ingesting", "ingested");
    if (!placed) await temp.abort();
    return placed;
  } catch (err) {
    await temp.abort();
    throw err;
  }
}

/** The `video.import` job: download or copy, probe, then the upload path (ingested → encode). */
export function importHandler(app: AppContext): JobHandler<{ videoId: string }> {
  return {
    kind: IMPORT_JOB,
    concurrency: 2,
    leaseMs: 60_000,
    giveUp({ videoId }) {
      failImport(app, videoId, "The import stopped before finishing on every attempt (the server was restarting or ran out of resources).");
    },
    async run({ videoId }, run) {
      const row = app.db.select().from(videos).where(eq(videos.id, videoId)).get();
      if (!row) return { status: "skip", reason: "the video was deleted" };
      if (row.ingestStatus !== "ingesting" || !row.importFrom) return { status: "skip", reason: "the source is already in place" };
      try {
        await fetchSource(app, row, run.signal);
        return { status: "success" };
      } catch (err) {
        if (run.signal.aborted) return { status: "failure", error: "stopped" };
        const reason = err instanceof ImportError || err instanceof MediaError ? err.reason : `The import failed: ${err instanceof Error ? err.message : String(err)}`;
        const retryable = err instanceof ImportError ? err.retryable : !(err instanceof MediaError);
        app.log.warn("import failed", { videoId, attempt: run.attempt, reason });
        if (retryable && run.attempt < run.maxAttempts) {
          return { status: "retry", delayMs: app.config.importRetryDelayMs * 2 ** (run.attempt - 1), error: reason };
        }
        failImport(app, videoId, reason);
        return { status: "failure", error: reason };
      }
    },
  };
}
