// api.video's Video Restore (VIDHOST_VIDEO_RESTORE): discarded videos stay 90 days, listed and
// read under /discarded/videos, restorable with PATCH {discarded:false}, then purged for good.
import { and, eq, isNotNull, lte } from "drizzle-orm";
import { atom } from "../clock";
import type { AppContext, ScopeCtx } from "../context";
import { videos } from "../db/schema";
import { invalidAttribute, notFound } from "../http/errors";
import { videoBody, type VideoRow } from "./body";
import { getVideo, removeVideo } from "./service";

function findDiscarded(ctx: ScopeCtx, videoId: string): VideoRow {
  const row = ctx.db.select().from(videos)
    .where(and(eq(videos.projectId, ctx.projectId), eq(videos.environment, ctx.environment), eq(videos.id, videoId), isNotNull(videos.discardedAt))).get();
  if (!row) throw notFound("videoId");
  return row;
}

/** GET /discarded/videos/{id}: the discarded video (assets null). */
export function getDiscardedVideo(ctx: ScopeCtx, videoId: string) {
  return videoBody(ctx, findDiscarded(ctx, videoId));
}

/** PATCH /discarded/videos/{id}: `{discarded:false}` restores the video (anything else is a 400); returns it as /videos shows it. */
export function restoreVideo(ctx: ScopeCtx, videoId: string, discarded: boolean) {
  if (discarded !== false) throw invalidAttribute("discarded", "Value must be false.");
  const row = findDiscarded(ctx, videoId);
  ctx.db.update(videos).set({ discardedAt: null, purgeAt: null, updatedAt: atom(ctx.clock.now()) }).where(eq(videos.id, row.id)).run();
  return getVideo(ctx, videoId);
}

/** Deletes discarded videos (row, encodes and media) whose 90 days have passed; returns how many. */
export async function purgeDiscardedVideos(app: AppContext): Promise<number> {
  const due = app.db.select().from(videos)
    .where(and(isNotNull(videos.discardedAt), isNotNull(videos.purgeAt), lte(videos.purgeAt, app.clock.now().getTime()))).all();
  for (const row of due) await removeVideo(app, row);
  if (due.length) app.log.info("discarded videos purged", { count: due.length });
  return due.length;
}
