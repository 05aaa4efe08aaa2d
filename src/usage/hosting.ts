// Hosting usage: minutes of encoded video hosted. "Hosted" means a probed source with at least one
// encoded rendition that the API shows; sandbox videos count at most 30 s (what their renditions
// hold). A discarded video (Video Restore) is not hosted from the day it is discarded: the API and
// delivery no longer know it, even though its media wait on disk for a restore or the purge.
import { and, eq, sql, type SQL } from "drizzle-orm";
import type { Environment } from "../config";
import type { AppContext } from "../context";
import { hostingUsage, renditions, videos } from "../db/schema";
import { SANDBOX_LIMIT_S } from "../encoding/sandbox";
import { utcDay } from "./record";

export interface StoredVideo {
  projectId: string;
  environment: Environment;
  /** The day the video was created (YYYY-MM-DD), for days before any snapshot. */
  day: string;
  /** The day it was discarded (YYYY-MM-DD), from which it is no longer hosted; null while it is. */
  discardedDay: string | null;
  seconds: number;
}

/** Whether a video counted as hosted at the end of `day` (a video discarded that day did not). */
export const hostedOn = (v: StoredVideo, day: string) => v.day <= day && (v.discardedDay === null || day < v.discardedDay);

/**
 * Every encoded video still on disk, with its encoded duration (optionally of one project):
 * discarded ones too, with their discard day, so days before any snapshot can be estimated.
 */
export function storedVideos(app: AppContext, projectId?: string): StoredVideo[] {
  const seconds = sql<number>`min(coalesce(json_extract(${videos.probe}, '$.durationS'), 0), CASE ${videos.environment} WHEN 'sandbox' THEN ${SANDBOX_LIMIT_S} ELSE 1e12 END)`;
  const conditions: SQL[] = [
    sql`${videos.probe} IS NOT NULL`,
    sql`EXISTS (SELECT 1 FROM ${renditions} WHERE ${renditions.videoId} = ${videos.id} AND ${renditions.status} = 'encoded')`,
  ];
  if (projectId) conditions.push(eq(videos.projectId, projectId));
  return app.db.select({ projectId: videos.projectId, environment: videos.environment, day: sql<string>`substr(${videos.createdAt}, 1, 10)`,
    discardedDay: sql<string | null>`substr(${videos.discardedAt}, 1, 10)`, seconds })
    .from(videos).where(and(...conditions)).all();
}

/** Writes today's figure for every project and environment that hosts video (hourly schedule); returns the rows written. */
export function snapshotHosting(app: AppContext): number {
  const day = utcDay(app.clock.now());
  const totals = new Map<string, { projectId: string; environment: Environment; seconds: number }>();
  for (const v of storedVideos(app)) {
    if (!hostedOn(v, day)) continue;
    const key = `${v.projectId}/${v.environment}`;
    const total = totals.get(key) ?? { projectId: v.projectId, environment: v.environment, seconds: 0 };
    total.seconds += v.seconds;
    totals.set(key, total);
  }
  app.db.transaction((tx) => {
    // A project that stored video earlier today and none now must read 0, not its older figure.
    tx.update(hostingUsage).set({ seconds: 0 }).where(eq(hostingUsage.day, day)).run();
    for (const t of totals.values()) {
      tx.insert(hostingUsage).values({ ...t, day }).onConflictDoUpdate({
        target: [hostingUsage.projectId, hostingUsage.environment, hostingUsage.day], set: { seconds: t.seconds },
      }).run();
    }
  });
  return totals.size;
}
