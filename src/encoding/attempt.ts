// What the encode, MP4 and import jobs do alike: the handler of a job on one video, how a throw
// settles the job (another attempt or the failure shown), and an attempt that runs ffmpeg in a
// folder of its own.
import { eq } from "drizzle-orm";
import type { AppContext } from "../context";
import { videos } from "../db/schema";
import { randomBase62 } from "../ids";
import { errorMessage } from "../jobs/failure";
import type { JobHandler, JobOutcome, JobRun } from "../jobs/queue";
import type { StorageKey } from "../media/storage";
import type { VideoRow } from "../videos/body";
import { videoKey } from "../videos/service";

/** Retried attempts of a video job start again this much later. */
const RETRY_MS = 5000;
/** After a full or failing disk, the next attempt waits this much longer per attempt made: room takes an operator to make. */
export const MACHINE_FAULT_RETRY_MS = 60_000;

export interface VideoJob {
  /** Shows a failure where users see it (the video's renditions and status). */
  fail(videoId: string, reason: string): void | Promise<void>;
  /** How many run at once; `encodingConcurrency` unless given. */
  concurrency?: number;
  /** What `fail` shows when every attempt died with its process (e.g. out of memory): never leave a rendition "encoding" forever. */
  lostReason: string;
  /** One attempt on the video's row. */
  run(row: VideoRow, run: JobRun): Promise<JobOutcome>;
}

/** The handler of a video job: as many at once as `encodingConcurrency` (unless told), a one-minute lease, skipped once the video is deleted. */
export function videoJobHandler(app: AppContext, kind: string, job: VideoJob): JobHandler<{ videoId: string }> {
  return {
    kind,
    concurrency: job.concurrency ?? app.config.encodingConcurrency,
    leaseMs: 60_000,
    giveUp({ videoId }) {
      // Resolves once `fail` is done (wrappers start what waited for this job then); a failure is only logged.
      return Promise.resolve(job.fail(videoId, job.lostReason))
        .catch((err) => app.log.warn("recording a lost job's failure failed", { kind, videoId, error: errorMessage(err) }));
    },
    async run({ videoId }, run) {
      const row = app.db.select().from(videos).where(eq(videos.id, videoId)).get();
      if (!row) return { status: "skip", reason: "the video was deleted" };
      return job.run(row, run);
    },
  };
}

export interface SettleRules {
  /** What users are told, from what the work threw. */
  reason(err: unknown): string;
  /** Whether another attempt may do better (given while attempts remain). */
  retry(err: unknown): boolean;
  /** How long after the failed attempt `attempt` (which threw `err`) the next one starts; RETRY_MS when not given or undefined. */
  retryDelayMs?(attempt: number, err: unknown): number | undefined;
  /** Logs each failed attempt as a warning with this message. */
  logAs?: string;
  /** Shows the reason of the last failed attempt (or one not retried). */
  fail(reason: string): void | Promise<void>;
}

export interface AttemptRules extends SettleRules {
  /** Starts the attempt folder's name, before the attempt number. */
  label: string;
  /** Deletes the folders of earlier attempts first: whatever wrote there was killed (or its process died). */
  clearEarlier?: boolean;
}

/**
 * Runs `work` and settles the job by what happened: success, "stopped" when it was aborted (a
 * shutdown is no failure), another attempt when the rules allow, else the failure, shown first.
 */
export async function settle(app: AppContext, videoId: string, run: JobRun, rules: SettleRules, work: () => Promise<unknown>): Promise<JobOutcome> {
  try {
    await work();
    return { status: "success" };
  } catch (err) {
    if (run.signal.aborted) return { status: "failure", error: "stopped" };
    const reason = rules.reason(err);
    if (rules.logAs) app.log.warn(rules.logAs, { videoId, attempt: run.attempt, reason, error: errorMessage(err) });
    if (rules.retry(err) && run.attempt < run.maxAttempts) {
      return { status: "retry", delayMs: rules.retryDelayMs?.(run.attempt, err) ?? RETRY_MS, error: reason };
    }
    await rules.fail(reason);
    return { status: "failure", error: reason };
  }
}

/**
 * Runs `work` with a fresh attempt folder of the video, which only this attempt's ffmpeg writes to
 * (see publishStaged) and which is removed afterwards, whatever happened; settles as `settle` does.
 */
export async function attempt(app: AppContext, row: VideoRow, run: JobRun, rules: AttemptRules, work: (stage: StorageKey) => Promise<void>): Promise<JobOutcome> {
  if (rules.clearEarlier) await app.storage.delete(videoKey(row, "attempts"));
  const stage = videoKey(row, "attempts", `${rules.label}${run.attempt}-${randomBase62(8)}`);
  return settle(app, row.id, run, rules, async () => {
    try {
      await work(stage);
    } catch (err) {
      // Cleared before the failure is visible, so the job settles as soon as the status says so.
      await app.storage.delete(stage).catch(() => {});
      throw err;
    }
    await app.storage.delete(stage);
  });
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

