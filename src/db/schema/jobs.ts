import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** The durable job queue: webhook deliveries now, encodes and schedules later. */
export const jobs = sqliteTable(
  "jobs",
  {
    id: text("id").primaryKey(),
    kind: text("kind").notNull(),
    payload: text("payload").notNull(),
    status: text("status", { enum: ["queued", "running", "done", "failed", "skipped"] }).notNull(),
    attempts: integer("attempts").notNull().default(0),
    maxAttempts: integer("max_attempts").notNull(),
    runAt: integer("run_at").notNull(),
    leaseOwner: text("lease_owner"),
    leaseUntil: integer("lease_until"),
    lastError: text("last_error"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [index("jobs_due").on(t.status, t.runAt)],
);

/**
 * Media tool processes (ffmpeg, ffprobe) this or an earlier appliance process started and has not
 * seen exit. A hard kill of the appliance leaves its children running; the next start kills those
 * whose pid still names the same process (same boot, same start time, same binary).
 */
export const mediaProcesses = sqliteTable(
  "media_processes",
  {
    id: text("id").primaryKey(),
    pid: integer("pid").notNull(),
    /** Field 22 of /proc/<pid>/stat: with the boot id, tells this process from a later one given the same pid. */
    startTicks: integer("start_ticks").notNull(),
    bootId: text("boot_id").notNull(),
    /** "ffmpeg", "ffprobe" or "whisper-cli". */
    tool: text("tool").notNull(),
    /** The binary's resolved path; /proc/<pid>/exe must show it, or a binary named like the tool (or an interpreter running it as a script), before a kill. */
    exe: text("exe").notNull(),
    ownerPid: integer("owner_pid").notNull(),
    ownerStartTicks: integer("owner_start_ticks").notNull(),
    startedAt: integer("started_at").notNull(),
  },
  (t) => [index("media_processes_owner").on(t.ownerPid)],
);
