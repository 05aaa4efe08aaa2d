// Delivery usage: seconds of media really served, added up per project, environment, UTC day and kind.
import { sql } from "drizzle-orm";
import type { Environment } from "../config";
import type { AppContext } from "../context";
import { preparedQuery } from "../db/prepared";
import { deliveryUsage } from "../db/schema";
import { SANDBOX_LIMIT_S } from "../encoding/sandbox";
import type { VideoRow } from "../videos/body";
import { videoKey } from "../videos/service";

export type DeliveryKind = (typeof deliveryUsage.$inferInsert)["kind"];

/** The UTC day of an instant, YYYY-MM-DD. */
export const utcDay = (date: Date) => date.toISOString().slice(0, 10);

const addSeconds = preparedQuery((db) =>
  db.insert(deliveryUsage).values({
    projectId: sql.placeholder("projectId"),
    environment: sql.placeholder("environment"),
    day: sql.placeholder("day"),
    kind: sql.placeholder("kind"),
    seconds: sql.placeholder("seconds"),
  }).onConflictDoUpdate({
    target: [deliveryUsage.projectId, deliveryUsage.environment, deliveryUsage.day, deliveryUsage.kind],
    set: { seconds: sql`${deliveryUsage.seconds} + excluded.seconds` },
  }).prepare());

/** Adds `seconds` served today to a project's delivery usage (live delivery calls this with live_stream_hls). */
export function recordDelivery(app: AppContext, scope: { projectId: string; environment: Environment }, kind: DeliveryKind, seconds: number): void {
  if (!(seconds > 0)) return;
  addSeconds(app).run({ projectId: scope.projectId, environment: scope.environment, day: utcDay(app.clock.now()), kind, seconds });
}

/** The duration of `file` in an HLS media playlist (its #EXTINF), or null. */
export function segmentSeconds(playlist: string, file: string): number | null {
  const lines = playlist.split(/\r?\n/).map((l) => l.trim());
  // The tags that describe a segment stand between the previous URI and its own.
  for (let i = lines.indexOf(file) - 1; i >= 0 && (lines[i] === "" || lines[i].startsWith("#")); i--) {
    if (lines[i].startsWith("#EXTINF:")) {
      const seconds = Number.parseFloat(lines[i].slice("#EXTINF:".length));
      return Number.isFinite(seconds) ? seconds : null;
    }
  }
  return null;
}

/** The encoded duration of a video: the probed source's, cut to 30 s in the sandbox. */
function encodedSeconds(row: VideoRow): number {
  const probed = row.probe ? (JSON.parse(row.probe) as { durationS?: number }).durationS ?? 0 : 0;
  return row.environment === "sandbox" ? Math.min(probed, SANDBOX_LIMIT_S) : probed;
}

export type ServedVideo = { hls: { quality: string; file: string } } | { mp4: { bytes: number; size: number } };

/**
 * Counts one delivery answer of a video, called by delivery as it serves: an HLS segment counts its
 * #EXTINF duration, MP4 bytes count their share of the video's duration (Range requests add up).
 * Playlists count nothing, and neither does a HEAD request (`head`), which serves no bytes. Never
 * throws: usage must not break playback.
 */
export function recordVideoDelivery(app: AppContext, row: VideoRow, served: ServedVideo, head: boolean): void {
  if (head) return;
  void (async () => {
    if ("mp4" in served) {
      if (served.mp4.size > 0) recordDelivery(app, row, "video_mp4", (encodedSeconds(row) * served.mp4.bytes) / served.mp4.size);
      return;
    }
    const { quality, file } = served.hls;
    if (file.endsWith(".m3u8")) return;
    const playlist = app.storage.get(videoKey(row, "hls", quality, "index.m3u8"));
    const seconds = playlist ? segmentSeconds(await playlist.text(), file) : null;
    if (seconds !== null) recordDelivery(app, row, "video_hls", seconds);
  })().catch((err) => app.log.warn("delivery usage not recorded", { videoId: row.id, error: err instanceof Error ? err.message : String(err) }));
}
