import { and, asc, eq, inArray, lt, lte, notInArray, sql } from "drizzle-orm";
import type { Clock } from "../clock";
import type { Db } from "../db/client";
import { jobs } from "../db/schema";
import { newId } from "../ids";
import type { Logger } from "../log";
import { selfIdentity, stillRunning } from "../media/procfs";
import { errorMessage } from "./failure";

export type JobOutcome =
  | { status: "success" }
  | { status: "retry"; delayMs: number; error: string }
  /** Not ready yet (e.g. another job must end first): look again later, without spending an attempt. */
  | { status: "wait"; delayMs: number; reason: string }
  | { status: "failure"; error: string }
  | { status: "skip"; reason: string };

export interface JobRun {
  jobId: string;
  /** 1 for the first attempt. */
  attempt: number;
  maxAttempts: number;
  /** Aborted when the process shuts down; the job is then released, not counted. */
  signal: AbortSignal;
}

/** A named, typed job kind with its own concurrency. */
export interface JobHandler<P = unknown> {
  kind: string;
  concurrency: number;
  /** How long a lease lasts before another worker may take the job; renewed while it runs. */
  leaseMs: number;
  run(payload: P, run: JobRun): Promise<JobOutcome>;
  /**
   * Called when the queue fails a job without a word from run(): its worker died (the lease
   * expired) during the last attempt. The handler records the failure where users see it; a
   * returned promise is not waited for, its rejection is logged.
   */
  giveUp?(payload: P, error: string): void | Promise<void>;
}

type Runner = Pick<Db, "insert">;

// "job_…@<boot id>:<pid>:<start ticks>", or the bare id where /proc is missing.
function leaseOwnerName(id: string): string {
  const self = selfIdentity();
  return self ? `${id}@${self.bootId}:${self.pid}:${self.startTicks}` : id;
}

// True only when the owner's name says which process it was and that process is gone.
function ownerGone(owner: string | null): boolean {
  const m = /@([0-9a-f-]+):(\d+):(\d+)$/.exec(owner ?? "");
  return !!m && !stillRunning({ bootId: m[1], pid: Number(m[2]), startTicks: Number(m[3]) });
}

/** A durable queue in SQLite: jobs survive restarts, leases expire if a process dies. */
export class JobQueue {
  private handlers = new Map<string, JobHandler<any>>();
  private running = new Map<string, { kind: string; payload: unknown; abort: AbortController; cancelled: boolean; done: Promise<void> }>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private started = false;
  // Names this process too (boot, pid, start time), so a later start can tell its leases are orphaned.
  private readonly owner = leaseOwnerName(newId("job_"));

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly pollMs = 1000,
  ) {}

  /** Registers the handler for a kind; jobs of unknown kinds wait until one is registered. */
  register<P>(handler: JobHandler<P>): void {
    this.handlers.set(handler.kind, handler);
  }

  /** Adds a job; pass the open transaction so the job commits with the change that caused it. */
  enqueue(runner: Runner, kind: string, payload: unknown, opts: { maxAttempts?: number; runAt?: number } = {}): string {
    const now = this.clock.now().getTime();
    const id = newId("job_");
    runner.insert(jobs).values({
      id, kind, payload: JSON.stringify(payload), status: "queued", attempts: 0,
      maxAttempts: opts.maxAttempts ?? 1, runAt: opts.runAt ?? now, createdAt: now, updatedAt: now,
    }).run();
    return id;
  }

  /** Wakes the worker loop now instead of at its next poll (call after committing new jobs). */
  notify(): void {
    if (this.started) queueMicrotask(() => this.tick());
  }

  /**
   * Aborts running jobs of `kind` whose payload matches and drops queued ones (e.g. the video was
   * deleted); returns the ids of the jobs it cancelled.
   */
  cancel(kind: string, match: (payload: unknown) => boolean): string[] {
    // updatedAt is when the job ended: the prune of finished jobs counts from it.
    const updatedAt = this.clock.now().getTime();
    const cancelled: string[] = [];
    for (const [id, r] of this.running) {
      if (r.kind !== kind || !match(r.payload)) continue;
      r.cancelled = true;
      r.abort.abort();
      this.db.update(jobs).set({ status: "skipped", lastError: "cancelled", leaseOwner: null, leaseUntil: null, updatedAt }).where(eq(jobs.id, id)).run();
      cancelled.push(id);
    }
    const queued = this.db.select({ id: jobs.id, payload: jobs.payload }).from(jobs).where(and(eq(jobs.kind, kind), eq(jobs.status, "queued"))).all();
    const ids = queued.filter((j) => match(JSON.parse(j.payload))).map((j) => j.id);
    if (ids.length) this.db.update(jobs).set({ status: "skipped", lastError: "cancelled", updatedAt }).where(inArray(jobs.id, ids)).run();
    return [...cancelled, ...ids];
  }

  /** Starts working; leases held by an appliance process that no longer runs are taken back at once, not after they expire. */
  start(): void {
    this.started = true;
    this.expireDeadOwners();
    this.tick();
  }

  // The lease is marked expired; recoverExpiredLeases then retries or fails the job as for any expiry.
  private expireDeadOwners(): void {
    const held = this.db.select({ id: jobs.id, owner: jobs.leaseOwner }).from(jobs).where(eq(jobs.status, "running")).all();
    const dead = held.filter((j) => j.owner !== this.owner && ownerGone(j.owner)).map((j) => j.id);
    if (dead.length) this.db.update(jobs).set({ leaseUntil: 0 }).where(and(inArray(jobs.id, dead), eq(jobs.status, "running"))).run();
  }

  /** Stops taking jobs, aborts the running ones and hands their leases back so the next start resumes them. */
  async stop(): Promise<void> {
    this.started = false;
    clearTimeout(this.timer);
    const inFlight = [...this.running.values()];
    for (const r of inFlight) r.abort.abort();
    await Promise.allSettled(inFlight.map((r) => r.done));
    this.db.update(jobs)
      .set({ status: "queued", leaseOwner: null, leaseUntil: null, attempts: sql`max(${jobs.attempts} - 1, 0)` })
      .where(and(eq(jobs.status, "running"), eq(jobs.leaseOwner, this.owner))).run();
  }

  private tick(): void {
    if (!this.started) return;
    clearTimeout(this.timer);
    const now = this.clock.now().getTime();
    let wakeMs = this.pollMs;
    try {
      this.recoverExpiredLeases(now);
      for (const handler of this.handlers.values()) {
        while (this.countRunning(handler.kind) < handler.concurrency) {
          const job = this.lease(handler, now);
          if (!job) break;
          this.execute(handler, job);
        }
      }
      wakeMs = this.nextWakeMs(now);
    } catch (err) {
      // A database that refuses a write now (a full disk, a lock held too long) is tried again at
      // the next poll: thrown from a timer, the error would end the process.
      this.log.error("job queue: looking for work failed", { error: errorMessage(err) });
    }
    this.timer = setTimeout(() => this.tick(), wakeMs);
  }

  private nextWakeMs(now: number): number {
    const next = this.db.select({ runAt: jobs.runAt }).from(jobs)
      .where(and(eq(jobs.status, "queued"), inArray(jobs.kind, [...this.handlers.keys()])))
      .orderBy(asc(jobs.runAt)).limit(1).get();
    return next ? Math.max(5, Math.min(this.pollMs, next.runAt - now)) : this.pollMs;
  }

  private countRunning(kind: string): number {
    let n = 0;
    for (const r of this.running.values()) if (r.kind === kind) n++;
    return n;
  }

  private recoverExpiredLeases(now: number): void {
    // A job whose worker died mid-run is retried, unless that run was already its last attempt.
    // Never one this process is still running: a lease can look expired after the clock jumped
    // (suspend, NTP, a test clock) or a long event-loop stall, and taking it back would run the
    // job twice at once and lose the running one's outcome.
    const mine = [...this.running.keys()];
    const error = "the worker stopped before finishing";
    const recovered = this.db.update(jobs)
      .set({
        status: sql`CASE WHEN ${jobs.attempts} >= ${jobs.maxAttempts} THEN 'failed' ELSE 'queued' END`,
        lastError: error, leaseOwner: null, leaseUntil: null, updatedAt: now,
      })
      .where(and(eq(jobs.status, "running"), lt(jobs.leaseUntil, now), ...(mine.length ? [notInArray(jobs.id, mine)] : [])))
      .returning({ kind: jobs.kind, payload: jobs.payload, status: jobs.status }).all();
    for (const job of recovered) {
      if (job.status !== "failed") continue;
      const logError = (err: unknown) => this.log.error(`job ${job.kind} giveUp threw`, { error: String(err) });
      try {
        void Promise.resolve(this.handlers.get(job.kind)?.giveUp?.(JSON.parse(job.payload), error)).catch(logError);
      } catch (err) {
        logError(err);
      }
    }
  }

  private lease(handler: JobHandler, now: number) {
    const due = this.db.select({ id: jobs.id }).from(jobs)
      .where(and(eq(jobs.status, "queued"), eq(jobs.kind, handler.kind), lte(jobs.runAt, now)))
      .orderBy(asc(jobs.runAt)).limit(1);
    return this.db.update(jobs)
      .set({ status: "running", leaseOwner: this.owner, leaseUntil: now + handler.leaseMs, attempts: sql`${jobs.attempts} + 1`, updatedAt: now })
      .where(and(inArray(jobs.id, due), eq(jobs.status, "queued")))
      .returning().get();
  }

  private execute(handler: JobHandler, job: typeof jobs.$inferSelect): void {
    const abort = new AbortController();
    const renew = setInterval(() => {
      try {
        this.db.update(jobs).set({ leaseUntil: this.clock.now().getTime() + handler.leaseMs })
          .where(and(eq(jobs.id, job.id), eq(jobs.leaseOwner, this.owner))).run();
      } catch (err) {
        // The next renewal tries again (a third of the lease later); thrown here it would end the process.
        this.log.warn(`job ${handler.kind}: renewing its lease failed`, { jobId: job.id, error: errorMessage(err) });
      }
    }, Math.max(50, handler.leaseMs / 3));
    const payload = JSON.parse(job.payload);
    const done = (async () => {
      let outcome: JobOutcome;
      try {
        outcome = await handler.run(payload, { jobId: job.id, attempt: job.attempts, maxAttempts: job.maxAttempts, signal: abort.signal });
      } catch (err) {
        outcome = { status: "failure", error: err instanceof Error ? err.message : String(err) };
        this.log.error(`job ${handler.kind} threw`, { jobId: job.id, error: String(err) });
      } finally {
        clearInterval(renew);
      }
      // An aborted job is released by stop(); recording its outcome would count a shutdown as a failure.
      try {
        if (!abort.signal.aborted) this.settle(job, outcome);
      } catch (err) {
        // Unrecorded, the job keeps its lease until it expires; it is then retried like one whose worker died.
        this.log.error(`job ${handler.kind}: recording its outcome failed`, { jobId: job.id, error: errorMessage(err) });
      }
    })().finally(() => {
      this.running.delete(job.id);
      if (this.started) this.tick();
    });
    this.running.set(job.id, { kind: handler.kind, payload, abort, cancelled: false, done });
  }

  private settle(job: typeof jobs.$inferSelect, outcome: JobOutcome): void {
    const now = this.clock.now().getTime();
    const base = { leaseOwner: null, leaseUntil: null, updatedAt: now };
    const where = and(eq(jobs.id, job.id), eq(jobs.leaseOwner, this.owner));
    if (outcome.status === "wait") {
      this.db.update(jobs).set({ ...base, status: "queued", runAt: now + outcome.delayMs, lastError: outcome.reason, attempts: sql`max(${jobs.attempts} - 1, 0)` }).where(where).run();
    } else if (outcome.status === "retry" && job.attempts < job.maxAttempts) {
      this.db.update(jobs).set({ ...base, status: "queued", runAt: now + outcome.delayMs, lastError: outcome.error }).where(where).run();
    } else if (outcome.status === "success" || outcome.status === "skip") {
      this.db.update(jobs).set({ ...base, status: outcome.status === "success" ? "done" : "skipped", lastError: outcome.status === "skip" ? outcome.reason : null }).where(where).run();
    } else {
      this.db.update(jobs).set({ ...base, status: "failed", lastError: outcome.error }).where(where).run();
    }
  }
}
