// Finished jobs are history nobody reads after a few days; without a prune the table (and every
// scan of it) grows with each upload, webhook and broadcast for ever.
import { sql } from "drizzle-orm";
import type { AppContext } from "../context";

const DAY_MS = 24 * 3600 * 1000;
/** Jobs that ended (done, failed, skipped) are kept this long after they ended. */
export const FINISHED_JOB_KEEP_MS = 7 * DAY_MS;
/** Rows per DELETE: one statement holds SQLite's write lock only briefly. */
export const PRUNE_BATCH = 5000;

/** Gives requests and jobs a turn between batches: the connection is synchronous. */
export const yieldTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Deletes jobs that ended more than 7 days ago, a batch at a time; returns how many went. */
export async function pruneFinishedJobs(app: Pick<AppContext, "db" | "clock">, batch = PRUNE_BATCH): Promise<number> {
  const cutoff = app.clock.now().getTime() - FINISHED_JOB_KEEP_MS;
  let deleted = 0;
  for (const status of ["done", "failed", "skipped"]) {
    for (;;) {
      // status + run_at walk the jobs_due index (a job ends after it falls due, so run_at <= updated_at
      // but for a cancelled job due later: it goes once that time is past too).
      const n = app.db.run(sql`DELETE FROM jobs WHERE id IN (
        SELECT id FROM jobs WHERE status = ${status} AND run_at < ${cutoff} AND updated_at < ${cutoff} LIMIT ${batch})`).changes;
      deleted += n;
      if (n < batch) break;
      await yieldTurn();
    }
  }
  return deleted;
}
