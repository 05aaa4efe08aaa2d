// Read models only the dashboard needs, on top of the main API's own verbs: videos with their
// per-quality status in one call, and a webhook's recent deliveries with every attempt.
import { asc, desc, eq, inArray } from "drizzle-orm";
import type { ScopeCtx } from "../context";
import { renditions, videos, webhookAttempts, webhookDeliveries } from "../db/schema";
import { listVideos } from "../videos/list";
import { parseVideoQuery } from "../videos/query";
import { getWebhook } from "../webhooks/service";

/** The /videos list (same filters and pagination) with each video's playability and rendition statuses. */
export function videoOverview(ctx: ScopeCtx, url: string) {
  const list = listVideos(ctx, { url, ...parseVideoQuery(url, { search: true }) });
  const ids = list.data.map((v) => v.videoId);
  const rows = ids.length ? ctx.db.select().from(videos).where(inArray(videos.id, ids)).all() : [];
  const qualities = ids.length
    ? ctx.db.select().from(renditions).where(inArray(renditions.videoId, ids)).orderBy(asc(renditions.position)).all()
    : [];
  return {
    data: list.data.map((video) => {
      const row = rows.find((r) => r.id === video.videoId);
      return {
        video,
        ingest: row?.ingestStatus ?? null,
        playable: row?.playable ?? false,
        thumbnail: row?.hasThumbnail ?? false,
        failureReason: row?.encodingError ?? null,
        qualities: qualities.filter((q) => q.videoId === video.videoId).map((q) => ({ type: q.type, quality: q.quality, status: q.status })),
      };
    }),
    pagination: list.pagination,
  };
}

/** A webhook's most recent deliveries (newest first), each with its attempts in order. */
export function recentDeliveries(ctx: ScopeCtx, webhookId: string, limit: number) {
  getWebhook(ctx, webhookId);
  const deliveries = ctx.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.webhookId, webhookId))
    .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id)).limit(limit).all();
  const attempts = deliveries.length
    ? ctx.db.select().from(webhookAttempts).where(inArray(webhookAttempts.deliveryId, deliveries.map((d) => d.id))).orderBy(asc(webhookAttempts.id)).all()
    : [];
  return {
    data: deliveries.map((d) => ({
      deliveryId: d.id,
      event: d.event,
      status: d.status,
      createdAt: d.createdAt,
      attempts: attempts.filter((a) => a.deliveryId === d.id).map((a) => ({
        attemptedAt: a.attemptedAt, statusCode: a.statusCode, error: a.error, durationMs: a.durationMs,
      })),
    })),
  };
}
