// When a video is ready for speech work: its encode has settled (every rendition encoded or failed,
// or encoding gave up with a reason). Summaries and transcripts asked for earlier wait for that.
import { and, eq, inArray, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { jobs, renditions, videos } from "../db/schema";
import { hasSource } from "../uploads/source";

type Reader = Pick<Db, "select">;

/** True once the video's source arrived and its encode ended (successfully or not). */
export function encodeSettled(db: Reader, videoId: string): boolean {
  const video = db.select().from(videos).where(eq(videos.id, videoId)).get();
  if (!video || !hasSource(video)) return false;
  if (video.encodingError) return true;
  const rows = db.select({ status: renditions.status }).from(renditions).where(eq(renditions.videoId, videoId)).all();
  return rows.length > 0 && rows.every((r) => r.status === "encoded" || r.status === "failed");
}

/** True when a job of `kind` whose payload has `field` = `value` is queued or running. */
export function pendingJob(db: Reader, kind: string, field: "videoId" | "summaryId", value: string): boolean {
  return !!db.select({ id: jobs.id }).from(jobs)
    .where(and(eq(jobs.kind, kind), inArray(jobs.status, ["queued", "running"]), sql`json_extract(${jobs.payload}, ${`$.${field}`}) = ${value}`))
    .get();
}
