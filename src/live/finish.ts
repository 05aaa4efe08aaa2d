// The finish job: once a broadcast is over (its reconnect window passed, or completion was asked),
// its recording pieces are joined into one MP4, which becomes a video (`source.liveStream`) in the
// same transaction as `video.source.recorded` and the video's encode job.
import { and, desc, eq, inArray, ne, sql } from "drizzle-orm";
import { atom } from "../clock";
import type { AppContext, ScopeCtx } from "../context";
import { jobs, liveBroadcasts, liveStreams, videos } from "../db/schema";
import { newId } from "../ids";
import type { JobHandler } from "../jobs/queue";
import { concatList, recordingConcatArgs } from "../media/args-live";
import { MediaError, runFfmpeg } from "../media/ffmpeg";
import { ENCODE_JOB, insertVideo, videoKey } from "../videos/service";
import { emitEvent } from "../webhooks/events";
import { hlsKey, liveKey, piecesKey, type BroadcastRow } from "./body";
import { FINISH_JOB, getBroadcast, type FinishPayload } from "./broadcasts";

/** What a broadcast shows when every finish attempt's worker died (killed, out of memory); its pieces are kept. */
const LOST_REASON = "Making the recording a video stopped before finishing on every attempt (the server was restarting or ran out of resources); the recording is kept.";

/** Sandbox recordings, like sandbox uploads, are deleted 24 hours later (DESIGN.md seed rules). */
const SANDBOX_RETENTION_MS = 24 * 3600 * 1000;

/** The finish job handler (see FINISH_JOB). */
export function finishHandler(app: AppContext): JobHandler<FinishPayload> {
  return {
    kind: FINISH_JOB,
    concurrency: 2,
    leaseMs: 60_000,
    // As a failed finish: the broadcast fails and its pieces stay (they may still become a video).
    // Only the part this job was for, and only while it is not live again or already settled; a
    // completed one whose run died before removing its pieces has them removed.
    async giveUp({ broadcastId, part }) {
      const b = getBroadcast(app, broadcastId);
      if (b?.state === "completed") return cleanUp(app, b);
      const failed = app.db.update(liveBroadcasts).set({ state: "failed", failure: LOST_REASON })
        .where(and(eq(liveBroadcasts.id, broadcastId), eq(liveBroadcasts.part, part), inArray(liveBroadcasts.state, ["reconnecting", "completing", "finalizing"])))
        .returning({ id: liveBroadcasts.id }).get();
      if (failed) app.log.error("live: the recording could not become a video", { broadcastId, reason: LOST_REASON });
    },
    async run({ broadcastId, part }, run) {
      const b = getBroadcast(app, broadcastId);
      if (!b) return { status: "skip", reason: "the broadcast is gone" };
      // A run that stopped between committing `completed` and removing the pieces left them: remove them now.
      if (b.state === "completed") await cleanUp(app, b);
      if (b.state === "completed" || b.state === "failed") return { status: "skip", reason: `already ${b.state}` };
      if (b.state === "live" || b.part !== part) return { status: "skip", reason: "the publisher came back: a later part finishes it" };
      // A finalizing broadcast whose finish job no longer runs was left by a stop (the queue hands
      // the job back with its attempt uncounted) or a crash: this run takes it over.
      if (b.state === "finalizing" && otherFinishRunning(app, b.id, run.jobId)) return { status: "skip", reason: "another run is finishing it" };
      if (b.state === "reconnecting" && b.disconnectedAt !== null) {
        const due = b.disconnectedAt + app.config.liveReconnectS * 1000 - app.clock.now().getTime();
        if (due > 0) return { status: "wait", delayMs: due, reason: "the reconnect window is still open" }; // spends no attempt
      }
      // The writers of the last part flush their files first (they saw their input end).
      await app.live.idle(b.id, run.signal);
      const claimed = app.db.update(liveBroadcasts).set({ state: "finalizing", videoId: b.videoId ?? newId("vi") })
        .where(and(eq(liveBroadcasts.id, b.id), eq(liveBroadcasts.part, part), inArray(liveBroadcasts.state, ["reconnecting", "completing", "finalizing"])))
        .returning().get();
      if (!claimed) return { status: "skip", reason: "the publisher came back" };
      try {
        const videoId = await recordVideo(app, claimed, run.signal);
        await cleanUp(app, claimed);
        return videoId ? { status: "success" } : { status: "skip", reason: "nothing was recorded" };
      } catch (err) {
        if (run.signal.aborted) return { status: "failure", error: "stopped" };
        const reason = err instanceof MediaError ? err.reason : String(err);
        if (!(err instanceof MediaError) && run.attempt < run.maxAttempts) return { status: "retry", delayMs: 2000, error: reason };
        app.db.update(liveBroadcasts).set({ state: "failed", failure: reason }).where(eq(liveBroadcasts.id, b.id)).run();
        app.log.error("live: the recording could not become a video", { broadcastId, reason });
        return { status: "failure", error: reason };
      }
    },
  };
}

// Whether a finish job of this broadcast other than `jobId` holds a lease right now.
function otherFinishRunning(app: AppContext, broadcastId: string, jobId: string): boolean {
  return !!app.db.select({ id: jobs.id }).from(jobs)
    .where(and(eq(jobs.kind, FINISH_JOB), eq(jobs.status, "running"), ne(jobs.id, jobId), sql`json_extract(${jobs.payload}, '$.broadcastId') = ${broadcastId}`)).get();
}

/** Joins the pieces into the video's source and creates the video; null when nothing was recorded. */
async function recordVideo(app: AppContext, b: BroadcastRow, signal: AbortSignal): Promise<string | null> {
  const pieces = (JSON.parse(b.pieces) as string[]).filter((p) => (app.storage.size(piecesKey(b, p)) ?? 0) > 0);
  if (!pieces.length) {
    app.db.update(liveBroadcasts).set({ state: "completed", videoId: null }).where(eq(liveBroadcasts.id, b.id)).run();
    return null;
  }
  if ("missing" in app.media) throw new MediaError(app.media.missing);
  const videoId = b.videoId!;
  const scope: ScopeCtx = { ...app, projectId: b.projectId, environment: b.environment, apiKeyId: "" };
  const source = videoKey({ projectId: b.projectId, environment: b.environment, id: videoId }, "source");
  await app.storage.put(piecesKey(b, "pieces.txt"), concatList(pieces.map((p) => app.storage.localPath(piecesKey(b, p)))));
  const format = pieces.some((p) => p.endsWith(".mkv")) ? "matroska" : "mp4";
  await runFfmpeg(app.media, recordingConcatArgs(app.storage.localPath(piecesKey(b, "pieces.txt")), app.storage.localPath(source, true), format), { signal, nice: true });
  const filesize = app.storage.size(source) ?? 0;
  const stream = app.db.select().from(liveStreams).where(eq(liveStreams.id, b.liveStreamId)).get();
  const now = app.clock.now();
  app.db.transaction((tx) => {
    // A retried run may find the video made by a run that stopped right after committing.
    if (!tx.select({ id: videos.id }).from(videos).where(eq(videos.id, videoId)).get()) {
      insertVideo(scope, { title: stream?.name ?? "Live recording", public: stream?.public ?? true, playerId: stream?.playerId ?? null }, {
        id: videoId, liveStreamId: b.liveStreamId, sourceType: "live", sourceName: `${b.liveStreamId}.${format === "mp4" ? "mp4" : "mkv"}`,
        ingestStatus: "uploaded", filesize, updatedAt: atom(now),
        expiresAt: b.environment === "sandbox" ? now.getTime() + SANDBOX_RETENTION_MS : null,
      });
      emitEvent(app, tx, { projectId: b.projectId, environment: b.environment }, "video.source.recorded", { liveStreamId: b.liveStreamId, videoId });
      app.queue.enqueue(tx, ENCODE_JOB, { videoId }, { maxAttempts: 3 });
    }
    tx.update(liveBroadcasts).set({ state: "completed" }).where(eq(liveBroadcasts.id, b.id)).run();
  });
  app.queue.notify();
  app.log.info("live: broadcast recorded", { liveStreamId: b.liveStreamId, broadcastId: b.id, videoId, pieces: pieces.length });
  return videoId;
}

/** Pieces go once they are a video; the live HLS stays until a newer broadcast replaces it (or the stream is gone). */
async function cleanUp(app: AppContext, b: BroadcastRow): Promise<void> {
  await app.storage.delete(piecesKey(b));
  const stream = { projectId: b.projectId, environment: b.environment, id: b.liveStreamId };
  if (!app.db.select({ id: liveStreams.id }).from(liveStreams).where(eq(liveStreams.id, b.liveStreamId)).get()) {
    const others = app.db.select({ id: liveBroadcasts.id }).from(liveBroadcasts)
      .where(and(eq(liveBroadcasts.liveStreamId, b.liveStreamId), ne(liveBroadcasts.id, b.id), inArray(liveBroadcasts.state, ["live", "reconnecting", "completing", "finalizing"]))).get();
    if (!others) await app.storage.delete(liveKey(stream));
    app.live.release(b.id);
    return;
  }
  const newest = app.db.select({ id: liveBroadcasts.id }).from(liveBroadcasts).where(eq(liveBroadcasts.liveStreamId, b.liveStreamId))
    .orderBy(desc(liveBroadcasts.startedAt)).limit(1).get();
  if (newest && newest.id !== b.id) {
    await app.storage.delete(hlsKey(b));
    app.live.release(b.id);
  }
}
