// The import job: fetch the source (download a URL into the video's import folder, where an
// interrupted download is continued by the next attempt, or copy another video's file into a temp
// file), check it is a video, then hand it to the same step a finished upload uses, which stores it and
// queues the encode. Failures end in a failed video with a reason in /status, like a bad upload.
import { and, eq } from "drizzle-orm";
import type { AppContext } from "../context";
import { videos } from "../db/schema";
import { failUnprobed } from "../encoding/renditions";
import { settle, videoJobHandler } from "../encoding/attempt";
import { serverFault } from "../jobs/failure";
import type { JobHandler } from "../jobs/queue";
import { MediaError, probe } from "../media/ffmpeg";
import type { ExclusiveFile, StorageKey, TempFile } from "../media/storage";
import { sourceArrived } from "../uploads/source";
import type { VideoRow } from "../videos/body";
import { IMPORT_JOB, videoKey } from "../videos/service";
import { download, ImportError, type DownloadLimits } from "./download";
import type { Resume } from "./resume";
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

/** Ends the video as failed, with `reason` shown as the status's failureReason; what a download kept goes. */
async function failImport(app: AppContext, videoId: string, reason: string): Promise<void> {
  const row = app.db.select().from(videos).where(eq(videos.id, videoId)).get();
  if (!row) return;
  failUnprobed(app, row, reason);
  await app.storage.delete(videoKey(row, "import"));
}

/** Where a URL download keeps its bytes between attempts (a restart included), and what they were fetched under. */
const partialKey = (row: VideoRow) => videoKey(row, "import", "partial");
const resumeKey = (row: VideoRow) => videoKey(row, "import", "resume.json");

/** What an earlier attempt at this URL kept, if it can be continued. */
async function keptBytes(app: AppContext, row: VideoRow, from: string): Promise<Resume | undefined> {
  const offset = app.storage.size(partialKey(row)) ?? 0;
  const saved = offset ? await app.storage.get(resumeKey(row))?.text() : undefined;
  if (!saved) return undefined;
  try {
    const { url, validator } = JSON.parse(saved) as { url?: unknown; validator?: unknown };
    return url === from && typeof validator === "string" && validator ? { offset, validator } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Downloads `from` into the video's partial file, continuing an earlier attempt's bytes when the
 * server confirms they are unchanged. The file is held (and a stale attempt stopped) throughout.
 */
async function downloadSource(app: AppContext, row: VideoRow, from: string, file: ExclusiveFile, signal: AbortSignal): Promise<number> {
  let position = 0;
  const { bytes } = await download(new URL(from), {
    async begin({ offset, validator }) {
      file.truncate(offset);
      position = offset;
      await app.storage.put(resumeKey(row), JSON.stringify({ url: from, validator }));
    },
    async write(chunk) {
      file.write(chunk, position);
      position += chunk.byteLength;
    },
  }, limits(app), signal, await keptBytes(app, row, from));
  return bytes;
}

/** Probes the fetched file and hands it over like a finished upload; false when the video moved on meanwhile. */
async function handOver(app: AppContext, row: VideoRow, from: string, path: string, file: { commitSync(key: StorageKey): void }, size: number, signal: AbortSignal): Promise<boolean> {
  if ("missing" in app.media) throw new MediaError(app.media.missing);
  try {
    await probe(app.media, path, signal);
  } catch (err) {
    if (err instanceof MediaError && !signal.aborted) throw new MediaError(isCopy(from) ? err.reason : `The downloaded file is not a usable video: ${err.reason}`);
    throw err;
  }
  // Only the first attempt to finish moves its file in; a video deleted meanwhile takes none.
  return sourceArrived(app, row.id, file, size, null, (fresh) => fresh.ingestStatus === "ingesting", "ingested");
}

/** Fetches, checks and hands over one import; throws ImportError or MediaError with a readable reason. */
async function fetchSource(app: AppContext, row: VideoRow, signal: AbortSignal): Promise<boolean> {
  const from = row.importFrom ?? "";
  if (!isCopy(from)) {
    const file = app.storage.openExclusive(partialKey(row), true)!;
    try {
      const size = await downloadSource(app, row, from, file, signal);
      const placed = await handOver(app, row, from, app.storage.localPath(partialKey(row)), file, size, signal);
      if (placed) await app.storage.delete(videoKey(row, "import"));
      return placed;
    } finally {
      file.close();
    }
  }
  const temp = app.storage.tempFile();
  try {
    await copySource(app, row, from, temp);
    await temp.end();
    const placed = await handOver(app, row, from, temp.localPath, temp, temp.size, signal);
    if (!placed) await temp.abort();
    return placed;
  } catch (err) {
    await temp.abort();
    throw err;
  }
}

/** The `video.import` job: download or copy, probe, then the upload path (ingested → encode). */
export function importHandler(app: AppContext): JobHandler<{ videoId: string }> {
  return videoJobHandler(app, IMPORT_JOB, {
    concurrency: 2,
    fail: (videoId, reason) => failImport(app, videoId, reason),
    lostReason: "The import stopped before finishing on every attempt (the server was restarting or ran out of resources).",
    async run(row, run) {
      if (row.ingestStatus !== "ingesting" || !row.importFrom) return { status: "skip", reason: "the source is already in place" };
      return settle(app, row.id, run, {
        reason: (err) => (err instanceof ImportError || err instanceof MediaError ? err.reason : serverFault("The import")),
        // A file that is not a video will not become one; a network failure may pass.
        retry: (err) => (err instanceof ImportError ? err.retryable : !(err instanceof MediaError)),
        retryDelayMs: (attempt) => app.config.importRetryDelayMs * 2 ** (attempt - 1),
        logAs: "import failed",
        fail: (reason) => failImport(app, row.id, reason),
      }, () => fetchSource(app, row, run.signal));
    },
  });
}
