// What the encode and the MP4 job do alike: the handler of a job on one video, and an attempt that
// runs ffmpeg in a folder of its own and settles the job the same way when it throws.
import { eq } from "drizzle-orm";
import type { AppContext } from "../context";
import { videos } from "../db/schema";
import { randomBase62 } from "../ids";
import type { JobHandler, JobOutcome, JobRun } from "../jobs/queue";
import type { StorageKey } from "../media/storage";
import type { VideoRow } from "../videos/body";
import { videoKey } from "../videos/service";

/** Retried attempts of a video job start again this much later. */
const RETRY_MS = 5000;

export interface VideoJob {
  /** Shows a failure where users see it (the video's renditions and status). */
  fail(videoId: string, reason: string): void;
  /** What `fail` shows when every attempt died with its process (e.g. out of memory): never leave a rendition "encoding" forever. */
  lostReason: string;
  /** One attempt on the video's row. */
  run(row: VideoRow, run: JobRun): Promise<JobOutcome>;
}

/** The handler of a video job: as many at once as `encodingConcurrency`, a one-minute lease, skipped once the video is deleted. */
export function videoJobHandler(app: AppContext, kind: string, job: VideoJob): JobHandler<{ videoId: string }> {
  return {
    kind,
    concurrency: app.config.encodingConcurrency,
    leaseMs: 60_000,
    giveUp({ videoId }) {
      job.fail(videoId, job.lostReason);
    },
    async run({ videoId }, run) {
      const row = app.db.select().from(videos).where(eq(videos.id, videoId)).get();
      if (!row) return { status: "skip", reason: "the video was deleted" };
      return job.run(row, run);
    },
  };
}

export interface AttemptRules {
  /** Starts the attempt folder's name, before the attempt number. */
  label: string;
  /** Deletes the folders of earlier attempts first: whatever wrote there was killed (or its process died). */
  clearEarlier?: boolean;
  /** What users are told, from what `work` threw. */
  reason(err: unknown): string;
  /** Whether another attempt may do better (given while attempts remain). */
  retry(err: unknown): boolean;
  /** Logs each failed attempt as a warning with this message. */
  logAs?: string;
  /** Shows the reason of the last failed attempt (or one not retried). */
  fail(reason: string): void;
}

/**
 * Runs `work` with a fresh attempt folder of the video, which only this attempt's ffmpeg writes to
 * (see publishStaged) and which is removed afterwards, whatever happened. A throw settles the job:
 * "stopped" when it was aborted (a shutdown is no failure), another attempt when the rules allow,
 * else the failure, shown first.
 */
export async function attempt(app: AppContext, row: VideoRow, run: JobRun, rules: AttemptRules, work: (stage: StorageKey) => Promise<void>): Promise<JobOutcome> {
  if (rules.clearEarlier) await app.storage.delete(videoKey(row, "attempts"));
  const stage = videoKey(row, "attempts", `${rules.label}${run.attempt}-${randomBase62(8)}`);
  try {
    await work(stage);
    await app.storage.delete(stage);
    return { status: "success" };
  } catch (err) {
    // Cleared before the failure is visible, so the job settles as soon as the status says so.
    await app.storage.delete(stage).catch(() => {});
    if (run.signal.aborted) return { status: "failure", error: "stopped" };
    const reason = rules.reason(err);
    if (rules.logAs) app.log.warn(rules.logAs, { videoId: row.id, attempt: run.attempt, reason });
    if (rules.retry(err) && run.attempt < run.maxAttempts) return { status: "retry", delayMs: RETRY_MS, error: reason };
    rules.fail(reason);
    return { status: "failure", error: reason };
  }
}

/**
 * Moves a finished output from the attempt folder into the video's, replacing what was there.
 * ffmpeg never writes where players read or where another attempt writes, so a stray writer (an
 * encoder left by a crashed process) can only ever touch its own abandoned attempt folder.
 */
export async function publishStaged(app: AppContext, row: VideoRow, stage: StorageKey, from: string[], to: string[]): Promise<void> {
  await app.storage.delete(videoKey(row, ...to));
  app.storage.move([...stage, ...from], videoKey(row, ...to));
}

/** An error's message, for a failure's reason. */
export const errorMessage = (err: unknown): string => (err instanceof Error ? err.message : String(err));
