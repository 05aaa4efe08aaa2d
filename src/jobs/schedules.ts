import { Cron } from "croner";
import type { AppContext } from "../context";
import { purgeExpiredVideos } from "../videos/purge";

/** Periodic housekeeping; returns a stop function for shutdown. */
export function startSchedules(app: AppContext): () => void {
  const jobs = [
    // Sandbox videos live 24 h; a 5-minute sweep keeps the overrun small without polling hard.
    // No `name`: croner keeps named jobs in a process-wide registry, and two appliances may share a process.
    new Cron("*/5 * * * *", { protect: true, catch: (err) => app.log.error("sandbox purge failed", { error: String(err) }) }, async () => {
      await purgeExpiredVideos(app);
    }),
  ];
  return () => jobs.forEach((job) => job.stop());
}
