import { and, eq, isNotNull, lte } from "drizzle-orm";
import { atom } from "../clock";
import type { AppContext } from "../context";
import { projects, videos } from "../db/schema";
import { removeVideo } from "../videos/service";

/**
 * Carries out the deletions scheduled with `deletes_at: "next_cycle"` whose time has come (run by the
 * hourly schedule). A project first stops authenticating (marked deleted, key cache forgotten) and
 * its broadcasts end (their writers stopped, so nothing writes into its folder); then its videos go
 * with their encodes and media, then its whole media folder, then its row, which
 * cascades to every row that belongs to it (keys, tokens, webhooks, usage, ...). Returns the ids deleted.
 */
export async function deleteDueProjects(app: AppContext): Promise<string[]> {
  const now = atom(app.clock.now());
  const due = app.db.select({ id: projects.id }).from(projects)
    .where(and(isNotNull(projects.deletesAt), lte(projects.deletesAt, now))).all();
  const deleted: string[] = [];
  for (const { id } of due) {
    try {
      app.db.update(projects).set({ deleted: true }).where(eq(projects.id, id)).run();
      app.keyCache.invalidateProject(id);
      const ended = [...app.live.completeAll(id, "sandbox"), ...app.live.completeAll(id, "production")];
      await Promise.all(ended.map((broadcastId) => app.live.idle(broadcastId)));
      for (const row of app.db.select().from(videos).where(eq(videos.projectId, id)).all()) await removeVideo(app, row);
      await app.storage.delete([id]);
      app.db.delete(projects).where(eq(projects.id, id)).run();
      deleted.push(id);
    } catch (err) {
      // Marked deleted, so it is already unusable; the next run tries the rest again.
      app.log.error("project deletion failed", { projectId: id, error: err instanceof Error ? err.message : String(err) });
    }
  }
  if (deleted.length) app.log.info("projects deleted", { projectIds: deleted });
  return deleted;
}
