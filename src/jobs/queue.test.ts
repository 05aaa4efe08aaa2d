// The durable queue's "wait" outcome on a real SQLite database: a job that is not ready yet comes
// back later without spending an attempt, so waiting on another job cannot exhaust its retries.
import { expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { openDatabase } from "../db/client";
import { migrate } from "../db/migrate";
import { jobs } from "../db/schema";
import { waitFor } from "../../test/helpers";
import { createLogger } from "../log";
import { JobQueue, type JobRun } from "./queue";

test("a job answering wait is run again later, its attempts unspent, then settles normally", async () => {
  const { sqlite, db } = openDatabase(":memory:");
  migrate(sqlite);
  const queue = new JobQueue(db, { now: () => new Date() }, createLogger("error", () => {}), 10);
  const seen: number[] = [];
  queue.register<{ n: number }>({
    kind: "test.wait",
    concurrency: 1,
    leaseMs: 60_000,
    async run(_payload, run: JobRun) {
      seen.push(run.attempt);
      return seen.length < 4 ? { status: "wait", delayMs: 1, reason: "not yet" } : { status: "success" };
    },
  });
  const id = queue.enqueue(db, "test.wait", { n: 1 }, { maxAttempts: 1 });
  queue.start();
  try {
    const job = await waitFor("the job done", () => {
      const j = db.select().from(jobs).where(eq(jobs.id, id)).get()!;
      return j.status === "done" ? j : null;
    });
    // One attempt allowed, four runs: the three waits spent nothing.
    expect(seen).toEqual([1, 1, 1, 1]);
    expect(job.attempts).toBe(1);
  } finally {
    await queue.stop();
    sqlite.close();
  }
});
