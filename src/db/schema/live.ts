import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { projects } from "./projects";

/** api.video live streams: a stream key publishers push to, and where viewers watch. */
export const liveStreams = sqliteTable(
  "live_streams",
  {
    id: text("id").primaryKey(),
    projectId: text("project_id").notNull().references(() => projects.id, { onDelete: "cascade" }),
    environment: text("environment", { enum: ["sandbox", "production"] }).notNull(),
    name: text("name").notNull(),
    /** The secret that picks this live stream at `rtmp://host:port/s/{streamKey}`. */
    streamKey: text("stream_key").notNull().unique(),
    public: integer("public", { mode: "boolean" }).notNull().default(true),
    playerId: text("player_id"),
    /** JSON {name, serverUrl, streamKey}[] (at most five). */
    restreams: text("restreams").notNull().default("[]"),
    /** True while a publisher is sending media (follows the real publish state). */
    broadcasting: integer("broadcasting", { mode: "boolean" }).notNull().default(false),
    /** An uploaded thumbnail replaces the picture taken from the broadcast. */
    thumbnailCustom: integer("thumbnail_custom", { mode: "boolean" }).notNull().default(false),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [index("live_streams_scope").on(t.projectId, t.environment)],
);

/**
 * One broadcast ("event"): from the first media until it completes, across reconnects within the
 * reconnect window. Not tied to the live stream by a foreign key: a broadcast whose live stream was
 * deleted still finishes into a video.
 */
export const liveBroadcasts = sqliteTable(
  "live_broadcasts",
  {
    id: text("id").primaryKey(),
    liveStreamId: text("live_stream_id").notNull(),
    projectId: text("project_id").notNull().references(() => projects.id, { onDelete: "cascade" }),
    environment: text("environment", { enum: ["sandbox", "production"] }).notNull(),
    /**
     * live: a publisher is sending media; reconnecting: it left, the window is open; completing:
     * ended (API, cut or deletion), waiting for the writers to flush; finalizing: becoming a video;
     * completed (videoId set unless nothing was recorded); failed: the recording could not be read.
     */
    state: text("state", { enum: ["live", "reconnecting", "completing", "finalizing", "completed", "failed"] }).notNull(),
    /** Publishes so far (1 for the first); a finish job names the part it was scheduled for. */
    part: integer("part").notNull(),
    /** JSON string[]: recording pieces (one per ffmpeg run), in order. */
    pieces: text("pieces").notNull().default("[]"),
    /** JSON {name, width, height, bandwidth}[]: the live HLS renditions, the source copy first. */
    renditions: text("renditions").notNull().default("[]"),
    /** Media recorded by finished parts, for the sandbox's 30 s cap. */
    recordedMs: integer("recorded_ms").notNull().default(0),
    startedAt: text("started_at").notNull(),
    /** When the last publisher left (epoch ms); the reconnect window runs from here. */
    disconnectedAt: integer("disconnected_at"),
    videoId: text("video_id"),
    failure: text("failure"),
  },
  (t) => [index("live_broadcasts_stream").on(t.liveStreamId, t.state), index("live_broadcasts_state").on(t.state)],
);
