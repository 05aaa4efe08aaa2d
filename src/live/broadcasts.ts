// Broadcast state changes, each in one transaction with the events and jobs it causes:
// media arrives → live (+ started); publisher leaves → reconnecting or completing (+ ended, finish
// job); complete → completing; a restart finds what the last process left behind.
import { and, desc, eq, inArray, sql } from "drizzle-orm";
import { atom } from "../clock";
import type { AppContext } from "../context";
import { jobs, liveBroadcasts, liveStreams } from "../db/schema";
import { randomBase62 } from "../ids";
import { emitEvent } from "../webhooks/events";
import type { BroadcastRow, LiveStreamRow } from "./body";
import type { Tx } from "../db/client";

/** The durable job that turns a finished broadcast's recording into a video. */
export const FINISH_JOB = "live.finish";

export interface FinishPayload {
  broadcastId: string;
  /** The part (publish) the job was scheduled after: a later publish makes it moot. */
  part: number;
}

const scopeOf = (b: { projectId: string; environment: BroadcastRow["environment"] }) => ({ projectId: b.projectId, environment: b.environment });

export function getBroadcast(app: AppContext, broadcastId: string): BroadcastRow | undefined {
  return app.db.select().from(liveBroadcasts).where(eq(liveBroadcasts.id, broadcastId)).get();
}

/** The newest broadcast of a live stream, in any state. */
export function latestBroadcast(app: AppContext, liveStreamId: string): BroadcastRow | undefined {
  return app.db.select().from(liveBroadcasts).where(eq(liveBroadcasts.liveStreamId, liveStreamId))
    .orderBy(desc(liveBroadcasts.startedAt), desc(sql`${liveBroadcasts}.rowid`)).limit(1).get();
}

function scheduleFinish(app: AppContext, tx: Tx, b: Pick<BroadcastRow, "id" | "part">, runAt: number): void {
  const payload: FinishPayload = { broadcastId: b.id, part: b.part };
  app.queue.enqueue(tx, FINISH_JOB, payload, { maxAttempts: 5, runAt });
}

function setBroadcasting(app: AppContext, tx: Tx, b: BroadcastRow, on: boolean): void {
  tx.update(liveStreams).set({ broadcasting: on, updatedAt: atom(app.clock.now()) }).where(eq(liveStreams.id, b.liveStreamId)).run();
  emitEvent(app, tx, scopeOf(b), on ? "live-stream.broadcast.started" : "live-stream.broadcast.ended", { liveStreamId: b.liveStreamId });
}

/**
 * Media arrived from a publisher: continues the stream's broadcast if it is inside its reconnect
 * window (same recording), else starts a new one; `broadcasting` turns true and `started` fires.
 */
export function startPublish(app: AppContext, stream: LiveStreamRow): { broadcast: BroadcastRow; resumed: boolean } {
  const now = app.clock.now();
  const windowMs = app.config.liveReconnectS * 1000;
  let result!: { broadcast: BroadcastRow; resumed: boolean };
  app.db.transaction((tx) => {
    const open = tx.select().from(liveBroadcasts)
      .where(and(eq(liveBroadcasts.liveStreamId, stream.id), eq(liveBroadcasts.state, "reconnecting")))
      .orderBy(desc(liveBroadcasts.startedAt)).limit(1).get();
    let broadcast: BroadcastRow;
    if (open && open.disconnectedAt !== null && now.getTime() - open.disconnectedAt <= windowMs) {
      broadcast = tx.update(liveBroadcasts).set({ state: "live", part: open.part + 1, disconnectedAt: null })
        .where(eq(liveBroadcasts.id, open.id)).returning().get();
      result = { broadcast, resumed: true };
    } else {
      broadcast = tx.insert(liveBroadcasts).values({
        id: `bc${randomBase62(22)}`, liveStreamId: stream.id, projectId: stream.projectId, environment: stream.environment,
        state: "live", part: 1, startedAt: now.toISOString(),
      }).returning().get();
      result = { broadcast, resumed: false };
    }
    setBroadcasting(app, tx, broadcast, true);
  });
  return result;
}

/**
 * The publisher left: `broadcasting` turns false and `ended` fires; the broadcast waits out the
 * reconnect window (or finishes at once when completion was asked for). `mediaMs` is what this
 * publish sent, counted toward the sandbox cap.
 */
export function endPublish(app: AppContext, broadcastId: string, mediaMs: number): void {
  const now = app.clock.now().getTime();
  app.db.transaction((tx) => {
    const b = tx.select().from(liveBroadcasts).where(eq(liveBroadcasts.id, broadcastId)).get();
    if (!b || (b.state !== "live" && b.state !== "completing")) return;
    setBroadcasting(app, tx, b, false);
    const recordedMs = b.recordedMs + Math.max(0, Math.round(mediaMs));
    if (b.state === "completing") {
      tx.update(liveBroadcasts).set({ recordedMs, disconnectedAt: now }).where(eq(liveBroadcasts.id, b.id)).run();
      scheduleFinish(app, tx, b, now);
    } else {
      tx.update(liveBroadcasts).set({ state: "reconnecting", recordedMs, disconnectedAt: now }).where(eq(liveBroadcasts.id, b.id)).run();
      scheduleFinish(app, tx, b, now + app.config.liveReconnectS * 1000);
    }
  });
  app.queue.notify();
}

/**
 * Completion asked (the API, the sandbox cap, a deletion): the stream's open broadcast finishes
 * without waiting for a reconnect. Returns it, or null when none was open. A live one finishes once
 * its publisher is gone (endPublish schedules the job); a reconnecting one is scheduled now.
 */
export function requestCompletion(app: AppContext, liveStreamId: string): BroadcastRow | null {
  let open: BroadcastRow | null = null;
  app.db.transaction((tx) => {
    const b = tx.select().from(liveBroadcasts)
      .where(and(eq(liveBroadcasts.liveStreamId, liveStreamId), inArray(liveBroadcasts.state, ["live", "reconnecting"])))
      .orderBy(desc(liveBroadcasts.startedAt)).limit(1).get();
    if (!b) return;
    tx.update(liveBroadcasts).set({ state: "completing" }).where(eq(liveBroadcasts.id, b.id)).run();
    if (b.state === "reconnecting") scheduleFinish(app, tx, b, app.clock.now().getTime());
    open = b;
  });
  app.queue.notify();
  return open;
}

/** Records the next recording piece of a broadcast (before its writer starts) and returns its name (`p0001.ts`, `p0002.mkv`…). */
export function addPiece(app: AppContext, broadcastId: string, extension: "ts" | "mkv"): string {
  let name = "";
  app.db.transaction((tx) => {
    const b = tx.select({ pieces: liveBroadcasts.pieces }).from(liveBroadcasts).where(eq(liveBroadcasts.id, broadcastId)).get();
    const pieces = JSON.parse(b?.pieces ?? "[]") as string[];
    name = `p${String(pieces.length + 1).padStart(4, "0")}.${extension}`;
    tx.update(liveBroadcasts).set({ pieces: JSON.stringify([...pieces, name]) }).where(eq(liveBroadcasts.id, broadcastId)).run();
  });
  return name;
}

/** Stores the live HLS renditions a broadcast is served with. */
export function setRenditions(app: AppContext, broadcastId: string, renditions: { name: string; width: number; height: number; bandwidth: number }[]): void {
  app.db.update(liveBroadcasts).set({ renditions: JSON.stringify(renditions) }).where(eq(liveBroadcasts.id, broadcastId)).run();
}

/**
 * At start-up, before any publisher can connect: broadcasts the previous process left `live`
 * lost their publisher with it. Each stops broadcasting (`ended` fires, once, here) and waits out
 * its reconnect window from now, so an encoder that reconnects after a restart continues the same
 * recording. Completing broadcasts whose publisher never got to leave are finished now.
 */
export function recoverBroadcasts(app: AppContext): number {
  const now = app.clock.now().getTime();
  const stale = app.db.select().from(liveBroadcasts).where(inArray(liveBroadcasts.state, ["live", "completing"])).all();
  for (const b of stale) {
    app.db.transaction((tx) => {
      if (b.state === "live") {
        tx.update(liveBroadcasts).set({ state: "reconnecting", disconnectedAt: now }).where(eq(liveBroadcasts.id, b.id)).run();
        scheduleFinish(app, tx, b, now + app.config.liveReconnectS * 1000);
      } else {
        const pending = tx.select({ id: jobs.id }).from(jobs)
          .where(and(eq(jobs.kind, FINISH_JOB), inArray(jobs.status, ["queued", "running"]), sql`json_extract(${jobs.payload}, '$.broadcastId') = ${b.id}`)).get();
        if (!pending) scheduleFinish(app, tx, b, now);
      }
    });
  }
  // Whatever still says broadcasting has no publisher now: `started` fired for it, so `ended` does.
  const flagged = app.db.select().from(liveStreams).where(eq(liveStreams.broadcasting, true)).all();
  for (const s of flagged) {
    app.db.transaction((tx) => {
      tx.update(liveStreams).set({ broadcasting: false, updatedAt: atom(app.clock.now()) }).where(eq(liveStreams.id, s.id)).run();
      emitEvent(app, tx, { projectId: s.projectId, environment: s.environment }, "live-stream.broadcast.ended", { liveStreamId: s.id });
    });
  }
  if (stale.length || flagged.length) app.log.info("live: recovered broadcasts interrupted by the last stop", { broadcasts: stale.length, streams: flagged.length });
  return stale.length + flagged.length;
}
