import { index, integer, primaryKey, real, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { projects } from "./projects";

/** Watermark images (`POST /watermarks`); the file lives in storage under the project. */
export const watermarks = sqliteTable(
  "watermarks",
  {
    id: text("id").primaryKey(),
    projectId: text("project_id").notNull().references(() => projects.id, { onDelete: "cascade" }),
    environment: text("environment", { enum: ["sandbox", "production"] }).notNull(),
    /** jpg | png: the stored file's format. */
    format: text("format").notNull(),
    width: integer("width").notNull(),
    height: integer("height").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [index("watermarks_scope").on(t.projectId, t.environment)],
);

/** Player themes (`/players`): colours and flags applied by the player pages, plus an optional logo. */
export const playerThemes = sqliteTable(
  "player_themes",
  {
    id: text("id").primaryKey(),
    projectId: text("project_id").notNull().references(() => projects.id, { onDelete: "cascade" }),
    environment: text("environment", { enum: ["sandbox", "production"] }).notNull(),
    name: text("name").notNull().default(""),
    /** JSON of the colour and flag fields (text, link, …, enableApi, forceLoop). */
    settings: text("settings").notNull().default("{}"),
    /** The logo's format (jpg | png) once uploaded; null without a logo. */
    logoFormat: text("logo_format"),
    /** Where a click on the logo leads. */
    logoLink: text("logo_link"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [index("player_themes_scope").on(t.projectId, t.environment)],
);

/** Single-use tokens minted on every read of a private video or live stream; stored hashed. */
export const privateTokens = sqliteTable(
  "private_tokens",
  {
    tokenHash: text("token_hash").primaryKey(),
    mediaId: text("media_id").notNull(),
    createdAt: integer("created_at").notNull(),
    /** epoch ms when the token was spent; null while unused. */
    usedAt: integer("used_at"),
  },
  (t) => [index("private_tokens_media").on(t.mediaId), index("private_tokens_created").on(t.createdAt)],
);

/** `avh` sessions opened from a private token; they let the player fetch the rest of the media. */
export const privateSessions = sqliteTable(
  "private_sessions",
  {
    sessionHash: text("session_hash").primaryKey(),
    mediaId: text("media_id").notNull(),
    expiresAt: integer("expires_at").notNull(),
  },
  (t) => [index("private_sessions_expiry").on(t.expiresAt)],
);

/** Player events reported by the player pages; the `/data` endpoints aggregate them in SQL. */
export const analyticsEvents = sqliteTable(
  "analytics_events",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    projectId: text("project_id").notNull().references(() => projects.id, { onDelete: "cascade" }),
    environment: text("environment", { enum: ["sandbox", "production"] }).notNull(),
    /** One player load: its impression, plays, starts, ends and heartbeats share it. */
    sessionId: text("session_id").notNull(),
    mediaId: text("media_id").notNull(),
    mediaType: text("media_type", { enum: ["video", "live-stream"] }).notNull(),
    /** impression | play | start | end | heartbeat */
    type: text("type").notNull(),
    emittedAt: integer("emitted_at").notNull(),
    /** Seconds watched since the session's previous report (heartbeats and ends). */
    watchTime: real("watch_time").notNull().default(0),
    country: text("country").notNull().default("unknown"),
    continent: text("continent").notNull().default("unknown"),
    deviceType: text("device_type").notNull().default("unknown"),
    operatingSystem: text("operating_system").notNull().default("unknown"),
    browser: text("browser").notNull().default("unknown"),
    referrer: text("referrer").notNull().default(""),
    /** Day-scoped digest of the viewer's address and User-Agent: `unique=true` counts these, not sessions. */
    viewer: text("viewer").notNull().default(""),
  },
  (t) => [
    index("analytics_scope_time").on(t.projectId, t.environment, t.emittedAt),
    index("analytics_media").on(t.mediaId, t.emittedAt),
    index("analytics_session").on(t.sessionId),
  ],
);

/** Plays rolled up per media when their events pass retention, so `play/total` still counts them. */
export const analyticsPlayTotals = sqliteTable(
  "analytics_play_totals",
  {
    projectId: text("project_id").notNull().references(() => projects.id, { onDelete: "cascade" }),
    environment: text("environment", { enum: ["sandbox", "production"] }).notNull(),
    mediaId: text("media_id").notNull(),
    mediaType: text("media_type", { enum: ["video", "live-stream"] }).notNull(),
    plays: integer("plays").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.environment, t.mediaId] })],
);
