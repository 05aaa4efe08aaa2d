import { and, isNotNull, lte } from "drizzle-orm";
import type { AppContext } from "../context";
import { videos } from "../db/schema";
import { removeVideo } from "./service";

/** Deletes sandbox videos (and their media) whose 24 hours have passed; returns how many. */
export async function purgeExpiredVideos(app: AppContext): Promise<number> {
  const expired = app.db.select().from(videos)
    .where(and(isNotNull(videos.expiresAt), lte(videos.expiresAt, app.clock.now().getTime()))).all();
  for (const row of expired) await removeVideo(app, row);
  if (expired.length) app.log.info("sandbox videos purged", { count: expired.length });
  return expired.length;
}
