// Summaries and transcripts asked for before a video was encoded wait for it: when its encode job
// ends (encoded or failed for good), their jobs are queued.
import { and, eq } from "drizzle-orm";
import type { AppContext } from "../context";
import { summaries, videos } from "../db/schema";
import type { JobHandler } from "../jobs/queue";
import { SUMMARY_ATTEMPTS, SUMMARY_JOB } from "../summaries/state";
import { TRANSCRIPT_ATTEMPTS, TRANSCRIPT_JOB } from "./job";
import { pendingJob } from "./readiness";

/** Queues the waiting summary and the asked-for transcript of a video whose encode just settled. */
export function startWaitingWork(app: AppContext, videoId: string): void {
  const video = app.db.select().from(videos).where(eq(videos.id, videoId)).get();
  if (!video) return;
  app.db.transaction((tx) => {
    const waiting = tx.select().from(summaries).where(and(eq(summaries.videoId, videoId), eq(summaries.sourceStatus, "waiting"))).all();
    for (const s of waiting) {
      if (!pendingJob(tx, SUMMARY_JOB, "summaryId", s.id)) app.queue.enqueue(tx, SUMMARY_JOB, { summaryId: s.id }, { maxAttempts: SUMMARY_ATTEMPTS });
    }
    if (video.transcript && !pendingJob(tx, TRANSCRIPT_JOB, "videoId", videoId)) app.queue.enqueue(tx, TRANSCRIPT_JOB, { videoId }, { maxAttempts: TRANSCRIPT_ATTEMPTS });
  });
  app.queue.notify();
}

/**
 * Wraps the encode handler: once a run ends other than by a retry or a shutdown, or the job is
 * given up (its worker died on the last attempt), waiting speech work starts. After a failed
 * encode that work fails with the encode's reason, rather than waiting forever.
 */
export function withSpeechFollowUps<P extends { videoId: string }>(app: AppContext, handler: JobHandler<P>): JobHandler<P> {
  return {
    ...handler,
    async run(payload, run) {
      const outcome = await handler.run(payload, run);
      if (outcome.status !== "retry" && outcome.status !== "wait" && !run.signal.aborted) startWaitingWork(app, payload.videoId);
      return outcome;
    },
    async giveUp(payload, error) {
      try {
        await handler.giveUp?.(payload, error);
      } finally {
        startWaitingWork(app, payload.videoId);
      }
    },
  };
}
