import { Cron } from "croner";
import { purgeAnalytics } from "../analytics/purge";
import type { AppContext } from "../context";
import { deleteDueProjects } from "../projects/deletion";
import { snapshotHosting } from "../usage/hosting";
import { purgeExpiredVideos } from "../videos/purge";
import { purgeDiscardedVideos } from "../videos/discarded";
import { sweepOrphanVideoMedia } from "../videos/orphan-media";
import { prunePrivateAccess } from "../private/tokens";
import { pruneDeliveries } from "../webhooks/prune";
import { pruneFinishedJobs } from "./prune";

/** Periodic housekeeping; returns a stop function for shutdown. */
export function startSchedules(app: AppContext): () => void {
  const jobs = [
    // Sandbox videos live 24 h; a 5-minute sweep keeps the overrun small without polling hard.
    // No `name`: croner keeps named jobs in a process-wide registry, and two appliances may share a process.
    new Cron("*/5 * * * *", { protect: true, catch: (err) => app.log.error("sandbox purge failed", { error: String(err) }) }, async () => {
      await purgeExpiredVideos(app);
    }),
    // Scheduled project deletions fall due at midnight UTC on the first of a month; checked every hour.
    new Cron("0 * * * *", { timezone: "Etc/UTC", protect: true, catch: (err) => app.log.error("project deletion failed", { error: String(err) }) }, async () => {
      await deleteDueProjects(app);
    }),
    // Hosting usage per day: at minute 59 of every hour, so each UTC day's last figure is taken at 23:59.
    new Cron("59 * * * *", { timezone: "Etc/UTC", catch: (err) => app.log.error("hosting snapshot failed", { error: String(err) }) }, () => {
      snapshotHosting(app);
    }),
    // Discarded videos (Video Restore) go 90 days after the delete; and every read of a private
    // video mints tokens, so spent and expired tokens and sessions are pruned on the same sweep.
    new Cron("17 * * * *", { protect: true, catch: (err) => app.log.error("discard purge failed", { error: String(err) }) }, async () => {
      await purgeDiscardedVideos(app);
      prunePrivateAccess(app);
    }),
    // History: jobs that ended over 7 days ago, webhook deliveries (with their attempts) over 30 days
    // old; in batches, so requests and jobs keep their turns on a large backlog.
    new Cron("41 * * * *", { protect: true, catch: (err) => app.log.error("history prune failed", { error: String(err) }) }, async () => {
      const jobs = await pruneFinishedJobs(app);
      const deliveries = await pruneDeliveries(app);
      if (jobs || deliveries) app.log.info("pruned finished jobs and old webhook deliveries", { jobs, deliveries });
      // And media a crash left behind a deleted video (the row went, its folder did not).
      await sweepOrphanVideoMedia(app);
    }),
    // Player events past retention (30 days, sandbox 24 h), every 10 minutes.
    new Cron("*/10 * * * *", { protect: true, catch: (err) => app.log.error("analytics purge failed", { error: String(err) }) }, () => {
      purgeAnalytics(app);
    }),
  ];
  return () => jobs.forEach((job) => job.stop());
}
