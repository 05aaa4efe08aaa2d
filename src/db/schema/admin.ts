import { index, integer, primaryKey, real, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { projects } from "./projects";

/**
 * Dashboard sessions: only the SHA-256 of the cookie's secret is kept. A session is bound to the
 * admin key it signed in with, so replacing the admin key ends every session.
 */
export const dashboardSessions = sqliteTable(
  "dashboard_sessions",
  {
    hash: text("hash").primaryKey(),
    adminKeyHash: text("admin_key_hash").notNull(),
    createdAt: text("created_at").notNull(),
    /** Epoch ms; the session is refused from this instant on. */
    expiresAt: integer("expires_at").notNull(),
  },
  (t) => [index("dashboard_sessions_expiry").on(t.expiresAt)],
);

/** Seconds of media really served, per project, environment, UTC day and kind. */
export const deliveryUsage = sqliteTable(
  "delivery_usage",
  {
    projectId: text("project_id").notNull().references(() => projects.id, { onDelete: "cascade" }),
    environment: text("environment", { enum: ["sandbox", "production"] }).notNull(),
    /** YYYY-MM-DD (UTC). */
    day: text("day").notNull(),
    kind: text("kind", { enum: ["video_hls", "video_mp4", "live_stream_hls"] }).notNull(),
    seconds: real("seconds").notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.environment, t.day, t.kind] })],
);

/** Seconds of encoded video stored, per project, environment and UTC day (the day's last snapshot). */
export const hostingUsage = sqliteTable(
  "hosting_usage",
  {
    projectId: text("project_id").notNull().references(() => projects.id, { onDelete: "cascade" }),
    environment: text("environment", { enum: ["sandbox", "production"] }).notNull(),
    day: text("day").notNull(),
    seconds: real("seconds").notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.environment, t.day] })],
);
