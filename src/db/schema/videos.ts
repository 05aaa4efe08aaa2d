import { index, integer, primaryKey, real, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { projects } from "./projects";

export const videos = sqliteTable(
  "videos",
  {
    id: text("id").primaryKey(),
    projectId: text("project_id").notNull().references(() => projects.id, { onDelete: "cascade" }),
    environment: text("environment", { enum: ["sandbox", "production"] }).notNull(),
    title: text("title").notNull(),
    description: text("description").notNull().default(""),
    public: integer("public", { mode: "boolean" }).notNull().default(true),
    panoramic: integer("panoramic", { mode: "boolean" }).notNull().default(false),
    mp4Support: integer("mp4_support", { mode: "boolean" }).notNull().default(true),
    playerId: text("player_id"),
    /** JSON string[] */
    tags: text("tags").notNull().default("[]"),
    /** JSON {key, value}[] */
    metadata: text("metadata").notNull().default("[]"),
    language: text("language"),
    languageOrigin: text("language_origin"),
    transcript: integer("transcript", { mode: "boolean" }).notNull().default(false),
    transcriptSummary: integer("transcript_summary", { mode: "boolean" }).notNull().default(false),
    /** JSON string[] or null */
    transcriptSummaryAttributes: text("transcript_summary_attributes"),
    /** upload | live: how the source arrived; null until it does. */
    sourceType: text("source_type"),
    liveStreamId: text("live_stream_id"),
    /** Original file name of the upload, kept for default titles and downloads. */
    sourceName: text("source_name"),
    ingestStatus: text("ingest_status", { enum: ["uploading", "uploaded", "ingesting", "ingested"] }),
    filesize: integer("filesize"),
    /** JSON UploadState of a ranged upload in progress (uploads/content-range.ts). */
    uploadState: text("upload_state"),
    /** Links token-upload chunks that come without a videoId (uploads/service.ts). */
    uploadCorrelation: text("upload_correlation"),
    playable: integer("playable", { mode: "boolean" }).notNull().default(false),
    /** JSON of the probed source (status metadata). */
    probe: text("probe"),
    encodingError: text("encoding_error"),
    /** A thumbnail timecode asked for before the source existed, applied after encoding. */
    thumbnailAt: real("thumbnail_at"),
    /** True once a thumbnail was uploaded or picked, so encoding does not overwrite it. */
    thumbnailCustom: integer("thumbnail_custom", { mode: "boolean" }).notNull().default(false),
    hasThumbnail: integer("has_thumbnail", { mode: "boolean" }).notNull().default(false),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
    /** Sandbox videos are deleted 24 h after their source arrives (epoch ms). */
    expiresAt: integer("expires_at"),
    /** JSON WatermarkPlacement given on create; burned into every rendition when the source arrives. */
    watermark: text("watermark"),
    /** JSON {startS, endS} given on create; the source is trimmed to it before encoding. */
    clip: text("clip"),
    /** Where an imported source comes from: an http(s) URL or the id of the video it copies. */
    importFrom: text("import_from"),
    /** Set when a delete discards instead (video restore on); the row and media stay until purgeAt. */
    discardedAt: text("discarded_at"),
    /** epoch ms when a discarded video is purged for good. */
    purgeAt: integer("purge_at"),
  },
  (t) => [
    index("videos_scope").on(t.projectId, t.environment),
    index("videos_live").on(t.liveStreamId),
    index("videos_correlation").on(t.uploadCorrelation),
    index("videos_expiry").on(t.expiresAt),
    index("videos_purge").on(t.purgeAt),
  ],
);

/** One row per output (HLS rung or MP4) with its own status. */
export const renditions = sqliteTable(
  "renditions",
  {
    videoId: text("video_id").notNull().references(() => videos.id, { onDelete: "cascade" }),
    type: text("type", { enum: ["hls", "mp4"] }).notNull(),
    quality: text("quality").notNull(),
    status: text("status", { enum: ["waiting", "encoding", "encoded", "failed"] }).notNull(),
    width: integer("width").notNull(),
    height: integer("height").notNull(),
    bandwidth: integer("bandwidth").notNull(),
    codecs: text("codecs"),
    position: integer("position").notNull(),
  },
  (t) => [primaryKey({ columns: [t.videoId, t.type, t.quality] })],
);

export const uploadTokens = sqliteTable(
  "upload_tokens",
  {
    id: text("id").primaryKey(),
    projectId: text("project_id").notNull().references(() => projects.id, { onDelete: "cascade" }),
    environment: text("environment", { enum: ["sandbox", "production"] }).notNull(),
    ttl: integer("ttl").notNull(),
    createdAt: text("created_at").notNull(),
    /** epoch ms; null = never expires */
    expiresAtMs: integer("expires_at_ms"),
  },
  (t) => [index("upload_tokens_scope").on(t.projectId, t.environment)],
);
