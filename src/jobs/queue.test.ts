// The durable queue on a real SQLite database. The "wait" outcome: a job that is not ready yet comes
// back later without spending an attempt, so waiting on another job cannot exhaust its retries.
// Leases: those of a process that no longer runs are taken back at start, not after they expire.
import { expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { openDatabase } from "../db/client";
import { migrate } from "../db/migrate";
import { jobs } from "../db/schema";
import { waitFor } from "../../test/helpers";
import { createLogger } from "../log";
import { identityOf, type ProcIdentity } from "../media/procfs";
import { systemClock } from "../clock";
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

// A job as a process left it: running, under a lease that has not expired yet.
function leftRunning(db: ReturnType<typeof openDatabase>["db"], id: string, owner: string) {
  const now = Date.now();
  db.insert(jobs).values({
    id, kind: "work", payload: JSON.stringify({ id }), status: "running", attempts: 1, maxAttempts: 3,
    runAt: now, leaseOwner: owner, leaseUntil: now + 3_600_000, createdAt: now, updatedAt: now,
  }).run();
}

const ownerName = (p: ProcIdentity) => `job_old@${p.bootId}:${p.pid}:${p.startTicks}`;

test("a start takes back at once the leases of a process that no longer runs, and leaves a live process's leases alone", async () => {
  const { sqlite, db } = openDatabase(":memory:");
  migrate(sqlite);
  const dead = Bun.spawn(["true"]);
  const deadId = identityOf(dead.pid)!;
  await dead.exited;
  leftRunning(db, "job_of_dead", ownerName(deadId));
  leftRunning(db, "job_of_live", ownerName(identityOf(process.pid)!));
  leftRunning(db, "job_unnamed", "job_legacy"); // a lease from before owners named their process: waits for expiry

  const ran: string[] = [];
  const queue = new JobQueue(db, systemClock, createLogger("error"), 20);
  queue.register<{ id: string }>({ kind: "work", concurrency: 3, leaseMs: 60_000, run: async ({ id }) => (ran.push(id), { status: "success" }) });
  queue.start();
  try {
    while (!ran.length) await Bun.sleep(5);
    expect(ran).toEqual(["job_of_dead"]);
    const status = (id: string) => db.select().from(jobs).where(eq(jobs.id, id)).get()!;
    while (status("job_of_dead").status !== "done") await Bun.sleep(5);
    expect(status("job_of_dead").attempts).toBe(2);
    expect(status("job_of_live").status).toBe("running");
    expect(status("job_unnamed").status).toBe("running");
  } finally {
    await queue.stop();
    sqlite.close();
  }
});

test("a database that refuses writes (a full disk) is logged and tried again; the queue keeps going and the job is retried", async () => {
  const { sqlite, db } = openDatabase(":memory:");
  migrate(sqlite);
  const logged: string[] = [];
  const now = { ms: Date.now() };
  const queue = new JobQueue(db, { now: () => new Date(now.ms) }, createLogger("warn", (l) => logged.push(l)), 10);
  let release!: () => void;
  const runs: number[] = [];
  queue.register({
    kind: "test.refused",
    concurrency: 1,
    leaseMs: 150, // renewed every 50 ms
    async run(_payload, run: JobRun) {
      runs.push(run.attempt);
      if (runs.length === 1) await new Promise<void>((resolve) => (release = resolve));
      return { status: "success" };
    },
  });
  const id = queue.enqueue(db, "test.refused", {}, { maxAttempts: 3 });
  queue.start();
  try {
    await waitFor("the first run", () => runs.length === 1);
    // Every write now fails, as on a full disk: lease renewals, the outcome, the worker loop's own writes.
    sqlite.exec("PRAGMA query_only = ON");
    await waitFor("a failed renewal logged", () => logged.some((l) => l.includes("renewing its lease failed")));
    release();
    await waitFor("the failed outcome logged", () => logged.some((l) => l.includes("recording its outcome failed")));
    await waitFor("a failed loop logged", () => logged.some((l) => l.includes("looking for work failed")));
    sqlite.exec("PRAGMA query_only = OFF");
    // Its lease (never renewed, never released) expires; the job then runs again, as if its worker had died.
    now.ms += 60_000;
    const job = await waitFor("the job done", () => {
      const j = db.select().from(jobs).where(eq(jobs.id, id)).get()!;
      return j.status === "done" ? j : null;
    });
    expect(runs).toEqual([1, 2]);
    expect(job.attempts).toBe(2);
  } finally {
    await queue.stop();
    sqlite.close();
  }
});

test("a job whose worker died on its last attempt is given up: giveUp hears of it, and a giveUp that rejects is logged", async () => {
  const { sqlite, db } = openDatabase(":memory:");
  migrate(sqlite);
  const dead = Bun.spawn(["true"]);
  const deadId = identityOf(dead.pid)!;
  await dead.exited;
  const now = Date.now();
  for (const [id, attempts] of [["job_last", 3], ["job_rejects", 3], ["job_spare", 1]] as const) {
    db.insert(jobs).values({
      id, kind: id === "job_rejects" ? "rejects" : "work", payload: JSON.stringify({ id }), status: "running", attempts, maxAttempts: 3,
      runAt: now, leaseOwner: ownerName(deadId), leaseUntil: now + 3_600_000, createdAt: now, updatedAt: now,
    }).run();
  }
  const lines: string[] = [];
  const given: string[] = [];
  const ran: string[] = [];
  const queue = new JobQueue(db, systemClock, createLogger("error", (l) => lines.push(l)), 20);
  queue.register<{ id: string }>({
    kind: "work", concurrency: 1, leaseMs: 60_000,
    run: async ({ id }) => (ran.push(id), { status: "success" }),
    giveUp: ({ id }, error) => void given.push(`${id}: ${error}`),
  });
  queue.register<{ id: string }>({
    kind: "rejects", concurrency: 1, leaseMs: 60_000,
    run: async () => ({ status: "success" }),
    giveUp: async () => { throw new Error("could not record it"); },
  });
  queue.start();
  try {
    await waitFor("the rejection logged", () => lines.some((l) => l.includes("job rejects giveUp threw") && l.includes("could not record it")));
    await waitFor("the spare attempt run", () => ran.length === 1);
    expect(ran).toEqual(["job_spare"]);
    expect(given).toEqual(["job_last: the worker stopped before finishing"]);
    const status = (id: string) => db.select().from(jobs).where(eq(jobs.id, id)).get()!.status;
    expect([status("job_last"), status("job_rejects")]).toEqual(["failed", "failed"]);
  } finally {
    await queue.stop();
    sqlite.close();
  }
});

test("cancel skips the matching running and queued jobs, stamps when they ended and returns their ids", async () => {
  const { sqlite, db } = openDatabase(":memory:");
  migrate(sqlite);
  let now = Date.UTC(2026, 10, 22);
  const queue = new JobQueue(db, { now: () => new Date(now) }, createLogger("error", () => {}), 10);
  let started!: () => void;
  const running = new Promise<void>((r) => (started = r));
  queue.register<{ videoId: string }>({
    kind: "work", concurrency: 1, leaseMs: 60_000,
    run: (_p, run) => new Promise((resolve) => { started(); run.signal.addEventListener("abort", () => resolve({ status: "success" })); }),
  });
  const first = queue.enqueue(db, "work", { videoId: "a" });
  queue.start();
  try {
    await running;
    const second = queue.enqueue(db, "work", { videoId: "a" }, { runAt: now + 3_600_000 });
    const other = queue.enqueue(db, "work", { videoId: "b" }, { runAt: now + 3_600_000 });
    now += 1000;
    expect(queue.cancel("work", (p) => (p as { videoId: string }).videoId === "a").sort()).toEqual([first, second].sort());
    const rows = db.select().from(jobs).all();
    for (const id of [first, second]) expect(rows.find((j) => j.id === id)).toMatchObject({ status: "skipped", lastError: "cancelled", updatedAt: now });
    expect(rows.find((j) => j.id === other)!.status).toBe("queued");
  } finally {
    await queue.stop();
    sqlite.close();
  }
});
