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
