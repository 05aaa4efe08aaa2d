import { asc, eq } from "drizzle-orm";
import type { ScopeCtx } from "../context";
import { renditions } from "../db/schema";
import type { ProbeResult } from "../media/ffmpeg";
import { aspectRatio } from "../media/ffmpeg";
import type { UploadState } from "../uploads/content-range";
import { findVideo } from "./service";

/** GET /videos/{id}/status: ingest progress, per-quality encoding state and the source's metadata. */
export function videoStatus(ctx: ScopeCtx, videoId: string) {
  const row = findVideo(ctx, videoId);
  const state = row.uploadState ? (JSON.parse(row.uploadState) as UploadState) : null;
  const probe = row.probe ? (JSON.parse(row.probe) as ProbeResult) : null;
  // With mp4Support off the MP4 is not offered (a file made earlier is kept, but not listed or served).
  const qualities = ctx.db.select().from(renditions).where(eq(renditions.videoId, videoId)).orderBy(asc(renditions.position)).all()
    .filter((q) => q.type !== "mp4" || row.mp4Support);
  const totalBytes = state?.totalBytes ?? null;
  return {
    ingest: {
      // Left out before any source (not null): the clients' enum checks refuse a null status.
      ...(row.ingestStatus !== null && { status: row.ingestStatus }),
      filesize: row.filesize,
      receivedBytes: state?.mode === "bytes" ? state.ranges.map((r) => ({ from: r.from, to: r.to, total: totalBytes })) : [],
      receivedParts: { parts: state?.mode === "part" ? state.parts.map((p) => p.part).sort((a, b) => a - b) : [], total: state?.totalParts ?? null },
    },
    encoding: {
      playable: row.playable,
      qualities: qualities.map((q) => ({ type: q.type, quality: q.quality, status: q.status })),
      metadata: {
        width: probe?.width ?? null,
        height: probe?.height ?? null,
        bitrate: probe?.bitrateKbps ?? null,
        duration: probe ? Math.round(probe.durationS) : null,
        framerate: probe ? Math.round(probe.frameRate) : null,
        samplerate: probe?.sampleRate ?? null,
        videoCodec: probe?.videoCodec ?? null,
        audioCodec: probe?.audioCodec ?? null,
        aspectRatio: probe ? aspectRatio(probe.width, probe.height) : null,
      },
      /** Vidhost's addition: why encoding failed, in words (null otherwise). */
      failureReason: row.encodingError,
    },
  };
}
