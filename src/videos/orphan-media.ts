// Media folders of videos that no longer exist. Deleting a video removes its row, then its folder:
// a crash in between (or a failed removal) leaves the folder, which nothing would ever read or
// remove. The hourly schedule sweeps them.
import { inArray } from "drizzle-orm";
import type { AppContext } from "../context";
import { liveBroadcasts, videos } from "../db/schema";

const ENVIRONMENTS = ["sandbox", "production"] as const;
/** Ids looked up per statement (SQLite bounds a statement's parameters). */
const BATCH = 500;

/**
 * Which of `ids` still name a video: a row, or a broadcast's recording, whose video id is reserved
 * before its source is written (the row comes once the recording is joined).
 */
function inUse(app: Pick<AppContext, "db">, ids: string[]): Set<string> {
  const used = new Set<string>();
  for (let i = 0; i < ids.length; i += BATCH) {
    const batch = ids.slice(i, i + BATCH);
    for (const r of app.db.select({ id: videos.id }).from(videos).where(inArray(videos.id, batch)).all()) used.add(r.id);
    for (const r of app.db.select({ id: liveBroadcasts.videoId }).from(liveBroadcasts).where(inArray(liveBroadcasts.videoId, batch)).all()) if (r.id) used.add(r.id);
  }
  return used;
}

/** Removes the folder of every video id on disk that has no row; returns how many went. */
export async function sweepOrphanVideoMedia(app: Pick<AppContext, "db" | "storage" | "log">): Promise<number> {
  let removed = 0;
  for (const projectId of app.storage.children([])) {
    for (const environment of ENVIRONMENTS) {
      const ids = app.storage.children([projectId, environment, "videos"]);
      if (!ids.length) continue;
      // Uploads and imports write files only once their row exists; recordings reserve their id first.
      const known = inUse(app, ids);
      for (const id of ids.filter((i) => !known.has(i))) {
        await app.storage.delete([projectId, environment, "videos", id]);
        removed++;
      }
    }
  }
  if (removed) app.log.info("removed the media of videos that no longer exist", { count: removed });
  return removed;
}
