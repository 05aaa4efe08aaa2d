// The summary state machine's shared rules: who may start a generation (the 409 rules), and
// starting one, which waits for the video's encode when that has not settled yet.
import { eq } from "drizzle-orm";
import { atom } from "../clock";
import type { AppContext } from "../context";
import { summaries } from "../db/schema";
import { ApiError } from "../http/errors";
import { newId } from "../ids";
import { encodeSettled } from "../transcripts/readiness";
import type { Environment } from "../config";
import type { SummaryAttribute } from "./engine";

export type SummaryRow = typeof summaries.$inferSelect;
export type SourceStatus = SummaryRow["sourceStatus"];

export const SUMMARY_JOB = "summary.generate";
/** Attempts of a summary job: only a worker that died (killed, out of memory) uses another; it is not the summary's fault. */
export const SUMMARY_ATTEMPTS = 3;

/** A summary "exists or runs" (api.video's 409 wording) while it is being generated or has a source. */
export const holdsVideo = (row: Pick<SummaryRow, "sourceStatus">) => row.sourceStatus === "waiting" || row.sourceStatus === "completed";

/** 409 summary-already-exists, `name` being the attribute that asked (videoId, transcriptSummary, summaryId). */
export function summaryConflict(name: string, detail = "You can delete the existing summary and generate a new one."): ApiError {
  return new ApiError(409, "summary-already-exists", "A summary already exists or is being created on this video.", { name, detail });
}

/** The api.video summary object, plus `failureReason` (Vidhost's addition: why it failed or is unprocessable). */
export function summaryBody(row: SummaryRow) {
  return {
    summaryId: row.id,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    videoId: row.videoId,
    origin: row.origin,
    sourceStatus: row.sourceStatus,
    failureReason: row.reason,
  };
}

/** The video's summary, if any. */
export function videoSummary(app: Pick<AppContext, "db">, videoId: string): SummaryRow | undefined {
  return app.db.select().from(summaries).where(eq(summaries.videoId, videoId)).get();
}

/**
 * Creates the video's summary, replacing one without a source (missing, failed, unprocessable);
 * 409 naming `conflictName` while one is waiting or completed. `auto` starts generating at once
 * when the video's encode has settled, else when it does (transcripts/after-encoding.ts).
 */
export function startSummary(
  app: AppContext,
  scope: { projectId: string; environment: Environment },
  videoId: string,
  opts: { origin: "auto" | "api"; attributes: SummaryAttribute[]; conflictName: string },
): SummaryRow {
  const now = atom(app.clock.now());
  const row: SummaryRow = {
    id: newId("summary_"), projectId: scope.projectId, environment: scope.environment, videoId, origin: opts.origin,
    sourceStatus: opts.origin === "auto" ? "waiting" : "missing", attributes: JSON.stringify(opts.attributes),
    abstract: null, takeaways: null, reason: null, createdAt: now, updatedAt: now,
  };
  let replaced: string | undefined;
  app.db.transaction((tx) => {
    const existing = tx.select().from(summaries).where(eq(summaries.videoId, videoId)).get();
    if (existing && holdsVideo(existing)) throw summaryConflict(opts.conflictName);
    if (existing) {
      tx.delete(summaries).where(eq(summaries.id, existing.id)).run();
      replaced = existing.id;
    }
    tx.insert(summaries).values(row).run();
    if (opts.origin === "auto" && encodeSettled(tx, videoId)) app.queue.enqueue(tx, SUMMARY_JOB, { summaryId: row.id }, { maxAttempts: SUMMARY_ATTEMPTS });
  });
  if (replaced) app.queue.cancel(SUMMARY_JOB, (p) => (p as { summaryId?: string }).summaryId === replaced);
  app.queue.notify();
  return row;
}

/** Stops a summary's generation, if one is queued or running. */
export function cancelGeneration(app: AppContext, summaryId: string): void {
  app.queue.cancel(SUMMARY_JOB, (p) => (p as { summaryId?: string }).summaryId === summaryId);
}
