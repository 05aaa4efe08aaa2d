import { and, eq, inArray } from "drizzle-orm";
import { atom } from "../clock";
import type { AppContext } from "../context";
import { renditions, videos } from "../db/schema";
import { ladderFor, type Rendition } from "../media/ladder";
import type { VideoRow } from "../videos/body";
import { emitEvent } from "../webhooks/events";

export type RenditionRow = typeof renditions.$inferSelect;
type Status = RenditionRow["status"];

/** The planned outputs of a video: every HLS rung plus the MP4 at the top one when mp4Support. */
export function planRenditions(app: AppContext, row: VideoRow, ladder: Rendition[]): RenditionRow[] {
  const existing = app.db.select().from(renditions).where(eq(renditions.videoId, row.id)).all();
  const top = ladder[ladder.length - 1];
  const planned: RenditionRow[] = ladder.map((r, i) => ({
    videoId: row.id, type: "hls", quality: r.name, status: "waiting", width: r.width, height: r.height,
    // BANDWIDTH is the peak rate in bits/s: video peak plus audio, with room for MPEG-TS overhead.
    bandwidth: Math.round((r.maxrateKbps + r.audioKbps) * 1000 * 1.08), codecs: null, position: i,
  }));
  // Read afresh: a PATCH turning mp4Support on after the job read the row must not be lost (encoding/mp4.ts plans it only once a ladder exists).
  const mp4Support = app.db.select({ on: videos.mp4Support }).from(videos).where(eq(videos.id, row.id)).get()?.on ?? row.mp4Support;
  if (mp4Support) {
    planned.push({ ...planned[planned.length - 1], type: "mp4", quality: top.name, position: ladder.length });
  }
  app.db.transaction((tx) => {
    for (const p of planned) {
      const before = existing.find((e) => e.type === p.type && e.quality === p.quality);
      // A resumed job keeps what is encoded; anything half-done starts again.
      if (before?.status === "encoded") continue;
      tx.insert(renditions).values(p).onConflictDoUpdate({ target: [renditions.videoId, renditions.type, renditions.quality], set: { ...p } }).run();
    }
  });
  return app.db.select().from(renditions).where(eq(renditions.videoId, row.id)).orderBy(renditions.position).all();
}

/** Sets the status of some renditions. */
export function setStatus(app: AppContext, videoId: string, keys: { type: string; quality: string }[], status: Status): void {
  app.db.transaction((tx) => {
    for (const k of keys) {
      tx.update(renditions).set({ status }).where(and(eq(renditions.videoId, videoId), eq(renditions.type, k.type as "hls" | "mp4"), eq(renditions.quality, k.quality))).run();
    }
  });
}

/**
 * Marks renditions encoded, lowest first, each with its webhook in the same transaction; the
 * first encoded HLS rendition makes the video playable.
 */
export function markEncoded(app: AppContext, row: VideoRow, done: { type: "hls" | "mp4"; quality: string; bandwidth?: number }[]): void {
  app.db.transaction((tx) => {
    for (const d of done) {
      const set: Partial<RenditionRow> = { status: "encoded" };
      if (d.bandwidth) set.bandwidth = d.bandwidth;
      tx.update(renditions).set(set).where(and(eq(renditions.videoId, row.id), eq(renditions.type, d.type), eq(renditions.quality, d.quality))).run();
      const fields = { videoId: row.id, encoding: d.type, quality: d.quality, ...(row.liveStreamId ? { liveStreamId: row.liveStreamId } : {}) };
      emitEvent(app, tx, { projectId: row.projectId, environment: row.environment }, "video.encoding.quality.completed", fields);
    }
    if (done.some((d) => d.type === "hls")) {
      tx.update(videos).set({ playable: true, updatedAt: atom(app.clock.now()) }).where(eq(videos.id, row.id)).run();
    }
  });
}

/**
 * Fails a video whose source was never probed: one 240p rendition stands for the output that will
 * never come (as api.video shows a bad upload), then every rendition fails with `reason`.
 */
export function failUnprobed(app: AppContext, row: VideoRow, reason: string): void {
  planRenditions(app, row, ladderFor({ width: 426, height: 240 }));
  failEncoding(app, row.id, reason);
}

/** Fails every rendition not yet encoded and records why, in words a user can act on. */
export function failEncoding(app: AppContext, videoId: string, reason: string): void {
  app.db.transaction((tx) => {
    tx.update(renditions).set({ status: "failed" })
      .where(and(eq(renditions.videoId, videoId), inArray(renditions.status, ["waiting", "encoding"]))).run();
    tx.update(videos).set({ encodingError: reason, updatedAt: atom(app.clock.now()) }).where(eq(videos.id, videoId)).run();
  });
}
