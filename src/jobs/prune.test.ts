// The prune of finished jobs on a real SQLite file with an injected clock.
import { afterAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../../test/helpers";
import { openDatabase } from "../db/client";
import { migrate } from "../db/migrate";
import { jobs } from "../db/schema";
import { FINISHED_JOB_KEEP_MS, pruneFinishedJobs } from "./prune";

const dir = tempDir("vidhost-prune-");
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const { sqlite, db } = openDatabase(join(dir, "vidhost.db"));
migrate(sqlite);
const NOW = Date.UTC(2026, 10, 22, 12);
const HOUR = 3600_000;
const clock = { now: () => new Date(NOW) };

function job(id: string, status: (typeof jobs.$inferInsert)["status"], endedAgo: number, runAt = NOW - endedAgo - HOUR) {
  db.insert(jobs).values({ id, kind: "k", payload: "{}", status, attempts: 1, maxAttempts: 3, runAt, createdAt: runAt, updatedAt: NOW - endedAgo }).run();
}

test("jobs that ended over 7 days ago go, in batches; recent and unfinished ones stay", async () => {
  const old = FINISHED_JOB_KEEP_MS + HOUR;
  for (let i = 0; i < 7; i++) job(`done-old-${i}`, "done", old);
  job("failed-old", "failed", old);
  job("skipped-old", "skipped", old);
  job("done-recent", "done", FINISHED_JOB_KEEP_MS - HOUR);
  job("failed-recent", "failed", HOUR);
  // Unfinished jobs stay whatever their age (a retry waiting, a lease held by a long encode).
  job("queued-old", "queued", old);
  job("running-old", "running", old);
  // Cancelled while it waited for a later run: it goes once that time is past as well.
  job("skipped-due-later", "skipped", old, NOW - FINISHED_JOB_KEEP_MS + HOUR);

  expect(await pruneFinishedJobs({ db, clock }, 3)).toBe(9);
  expect(db.select({ id: jobs.id }).from(jobs).all().map((j) => j.id).sort()).toEqual(
    ["done-recent", "failed-recent", "queued-old", "running-old", "skipped-due-later"],
  );
  expect(await pruneFinishedJobs({ db, clock }, 3)).toBe(0);
});
