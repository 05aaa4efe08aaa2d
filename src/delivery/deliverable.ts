import { and, eq, isNull } from "drizzle-orm";
import type { Environment } from "../config";
import type { AppContext } from "../context";
import { videos } from "../db/schema";
import { notFound } from "../http/errors";
import { admit, type Access, type Pass } from "../private/access";
import type { VideoRow } from "../videos/body";

/**
 * Delivery serves by id alone (players hold no key), but only on the video's own environment's
 * listener, never a discarded video, and a private one only to a token or `avh` session holder.
 */
export function deliverable(app: AppContext, environment: Environment, videoId: string, access: Access): { row: VideoRow; pass: Pass } {
  const row = app.db.select().from(videos).where(and(eq(videos.id, videoId), eq(videos.environment, environment), isNull(videos.discardedAt))).get();
  if (!row) throw notFound("videoId");
  return { row, pass: admit(app, row, access, "videoId") };
}
