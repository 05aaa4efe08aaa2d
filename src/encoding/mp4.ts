// The MP4 of a video encoded without one: `mp4Support` turned on by PATCH /videos/{id} after the
// encode planned no MP4. It is made the way the encode makes it (encoding/job.ts packageMp4): a
// stream copy of the top encoded HLS rendition, so it carries the same picture and length as the
// ladder (watermarks, clip and sandbox cut included), never a fresh read of the source.
import { and, desc, eq, inArray } from "drizzle-orm";
import { atom } from "../clock";
import type { AppContext } from "../context";
import { renditions, videos } from "../db/schema";
import type { JobHandler } from "../jobs/queue";
import { mp4FromHlsArgs } from "../media/args";
import { runFfmpeg } from "../media/ffmpeg";
import type { MediaTools } from "../media/tools";
import { pendingJob } from "../transcripts/readiness";
import { ENCODE_JOB, MP4_JOB, videoKey } from "../videos/service";
import { serverFault } from "../jobs/failure";
import { attempt, publishStaged, videoJobHandler } from "./attempt";
import { markEncoded, setStatus } from "./renditions";

type Runner = Pick<AppContext["db"], "select" | "insert" | "update">;

/** While an encode of the video is queued or running, the MP4 job looks again this much later. */
const WAIT_FOR_ENCODE_MS = 2000;

/** The highest HLS rendition planned for the video (the one the MP4 copies), or undefined. */
const topRung = (db: Runner, videoId: string) =>
  db.select().from(renditions).where(and(eq(renditions.videoId, videoId), eq(renditions.type, "hls"))).orderBy(desc(renditions.position)).limit(1).get();

/**
 * Called in the PATCH that turned `mp4Support` on: plans the MP4 rendition (waiting) and enqueues
 * its job, in the caller's transaction. Nothing when the video has no planned ladder yet (the
 * encode reads `mp4Support` when it plans), its encode failed, or it already has an MP4 encoded
 * or on its way (one kept from before `mp4Support` was turned off is served again at once).
 */
export function planLateMp4(app: AppContext, tx: Runner, videoId: string): boolean {
  const top = topRung(tx, videoId);
  // No ladder yet, or an encode that failed: nothing to copy from.
  if (!top || top.status === "failed") return false;
  const mp4 = tx.select().from(renditions).where(and(eq(renditions.videoId, videoId), eq(renditions.type, "mp4"))).get();
  if (mp4 && mp4.status !== "failed") return false;
  const row = { ...top, type: "mp4" as const, status: "waiting" as const, position: top.position + 1 };
  if (mp4) tx.update(renditions).set(row).where(and(eq(renditions.videoId, videoId), eq(renditions.type, "mp4"), eq(renditions.quality, mp4.quality))).run();
  else tx.insert(renditions).values(row).run();
  app.queue.enqueue(tx, MP4_JOB, { videoId }, { maxAttempts: 3 });
  return true;
}

/** Fails the waiting or running MP4 rendition, with the reason in the status. */
function failMp4(app: AppContext, videoId: string, reason: string): void {
  app.db.transaction((tx) => {
    tx.update(renditions).set({ status: "failed" })
      .where(and(eq(renditions.videoId, videoId), eq(renditions.type, "mp4"), inArray(renditions.status, ["waiting", "encoding"]))).run();
    tx.update(videos).set({ encodingError: reason, updatedAt: atom(app.clock.now()) }).where(eq(videos.id, videoId)).run();
  });
}

/** The MP4 job: waits for a running encode, then stream-copies the top HLS rendition into the MP4. */
export function mp4Handler(app: AppContext): JobHandler<{ videoId: string }> {
  return videoJobHandler(app, MP4_JOB, {
    fail: (videoId, reason) => failMp4(app, videoId, reason),
    lostReason: "Making the MP4 stopped before finishing on every attempt.",
    async run(row, run) {
      const videoId = row.id;
      const mp4 = app.db.select().from(renditions).where(and(eq(renditions.videoId, videoId), eq(renditions.type, "mp4"))).get();
      if (!mp4 || mp4.status === "encoded" || mp4.status === "failed") return { status: "skip", reason: "no MP4 is waiting" };
      // The encode may still be writing the top rung, or may plan (and package) the MP4 itself on a resume.
      if (pendingJob(app.db, ENCODE_JOB, "videoId", videoId)) return { status: "wait", delayMs: WAIT_FOR_ENCODE_MS, reason: "waiting for the encode to end" };
      const top = topRung(app.db, videoId);
      if (!top || top.status !== "encoded" || top.quality !== mp4.quality) {
        failMp4(app, videoId, "The MP4 could not be made: the video has no encoded rendition to copy it from.");
        return { status: "failure", error: "no encoded top rendition" };
      }
      if ("missing" in app.media) {
        failMp4(app, videoId, app.media.missing);
        return { status: "failure", error: app.media.missing };
      }
      setStatus(app, videoId, [{ type: "mp4", quality: mp4.quality }], "encoding");
      // Written in an attempt folder of its own and moved into place, as the encode does.
      const outcome = await attempt(app, row, run, {
        label: "mp4-",
        reason: () => serverFault("Making the MP4"),
        retry: () => true,
        fail: (reason) => failMp4(app, videoId, reason),
      }, async (stage) => {
        const playlist = app.storage.localPath(videoKey(row, "hls", top.quality, "index.m3u8"));
        const output = app.storage.localPath([...stage, "source.mp4"], true);
        await runFfmpeg(app.media as MediaTools, mp4FromHlsArgs(playlist, output), { signal: run.signal, nice: true });
        await publishStaged(app, row, stage, ["source.mp4"], ["mp4", "source.mp4"]);
      });
      if (outcome.status !== "success") return outcome;
      // A video deleted while ffmpeg ran has no row left to mark (and no webhook is due).
      if (!app.db.select({ id: videos.id }).from(videos).where(eq(videos.id, videoId)).get()) return { status: "skip", reason: "the video was deleted" };
      markEncoded(app, row, [{ type: "mp4", quality: mp4.quality }]);
      return { status: "success" };
    },
  });
}
