import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { videos } from "./videos";

/** One WebVTT caption track per video and language; the file lives in storage under the video. */
export const captions = sqliteTable(
  "captions",
  {
    videoId: text("video_id").notNull().references(() => videos.id, { onDelete: "cascade" }),
    /** Canonical IETF tag (e.g. `fr-CA`), the file's name in storage and in URLs. */
    language: text("language").notNull(),
    /** At most one caption per video is the default (shown without the viewer asking). */
    isDefault: integer("is_default", { mode: "boolean" }).notNull().default(false),
    /** True when made from speech (`transcript: true`), false when uploaded. */
    generated: integer("generated", { mode: "boolean" }).notNull().default(false),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.videoId, t.language] })],
);

/** One WebVTT chapter file per video and language. */
export const chapters = sqliteTable(
  "chapters",
  {
    videoId: text("video_id").notNull().references(() => videos.id, { onDelete: "cascade" }),
    language: text("language").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.videoId, t.language] }), index("chapters_video").on(t.videoId, t.createdAt)],
);
