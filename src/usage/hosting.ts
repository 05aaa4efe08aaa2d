// Hosting usage: minutes of encoded video stored. "Stored" means a probed source with at least one
// encoded rendition; sandbox videos count at most 30 s (what their renditions hold).
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
  seconds: number;
}

/** Every video stored now, with its encoded duration (optionally of one project). */
export function storedVideos(app: AppContext, projectId?: string): StoredVideo[] {
  const seconds = sql<number>`min(coalesce(json_extract(${videos.probe}, '$.durationS'), 0), CASE ${videos.environment} WHEN 'sandbox' THEN ${SANDBOX_LIMIT_S} ELSE 1e12 END)`;
  const conditions: SQL[] = [
    sql`${videos.probe} IS NOT NULL`,
    sql`EXISTS (SELECT 1 FROM ${renditions} WHERE ${renditions.videoId} = ${videos.id} AND ${renditions.status} = 'encoded')`,
  ];
  if (projectId) conditions.push(eq(videos.projectId, projectId));
  return app.db.select({ projectId: videos.projectId, environment: videos.environment, day: sql<string>`substr(${videos.createdAt}, 1, 10)`, seconds })
    .from(videos).where(and(...conditions)).all();
}

/** Writes today's figure for every project and environment that stores video (hourly schedule); returns the rows written. */
export function snapshotHosting(app: AppContext): number {
  const day = utcDay(app.clock.now());
  const totals = new Map<string, { projectId: string; environment: Environment; seconds: number }>();
  for (const v of storedVideos(app)) {
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
