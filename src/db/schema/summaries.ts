import { index, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { projects } from "./projects";
import { videos } from "./videos";

/**
 * A video's summary (api.video §7): at most one per video. `sourceStatus` follows
 * missing | waiting → completed | failed | unprocessable; the source is `abstract` + `takeaways`.
 */
export const summaries = sqliteTable(
  "summaries",
  {
    id: text("id").primaryKey(),
    projectId: text("project_id").notNull().references(() => projects.id, { onDelete: "cascade" }),
    environment: text("environment", { enum: ["sandbox", "production"] }).notNull(),
    videoId: text("video_id").notNull().references(() => videos.id, { onDelete: "cascade" }),
    origin: text("origin", { enum: ["auto", "api"] }).notNull(),
    sourceStatus: text("source_status", { enum: ["missing", "waiting", "failed", "completed", "unprocessable"] }).notNull(),
    /** JSON ("abstract" | "takeaways")[]: what a generation writes. */
    attributes: text("attributes").notNull(),
    abstract: text("abstract"),
    /** JSON string[] (three, in the order they occur). */
    takeaways: text("takeaways"),
    /** Why the last generation ended failed or unprocessable, in words. */
    reason: text("reason"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [uniqueIndex("summaries_video").on(t.videoId), index("summaries_scope").on(t.projectId, t.environment, t.createdAt)],
);
