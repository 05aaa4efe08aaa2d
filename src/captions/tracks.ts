// Captions and chapters are both per-language WebVTT tracks of a video: one file per video and
// language in storage, one row per file in the kind's own table. The verbs they share live here;
// what only captions have (default, generated tracks, HLS subtitle renditions) stays in service.ts.
import { and, asc, count, eq } from "drizzle-orm";
import { atom } from "../clock";
import type { AppContext, ScopeCtx } from "../context";
import { captions, chapters } from "../db/schema";
import { notFound } from "../http/errors";
import { offsetOf, paginate, type Page } from "../http/pagination";
import { receiveFile, type UploadRequest } from "../uploads/receive";
import type { VideoRow } from "../videos/body";
import { findVideo, videoKey } from "../videos/service";
import { captionLanguage } from "./languages";
import type { Tx } from "../db/client";

/** Track files are text: 16 MiB is hours of dense subtitles. */
const MAX_VTT_BYTES = 16 * 1024 * 1024;

/** A kind of track: its folder in storage and its segment in URLs, both named after its table. */
export type TrackKind = "captions" | "chapters";
const TABLES = { captions, chapters } as const;
type TrackRow<K extends TrackKind> = (typeof TABLES)[K]["$inferSelect"];
type Reader = Pick<AppContext["db"], "select">;

/** Where a track's file lives (one per video, kind and language). */
export const trackKey = (row: Pick<VideoRow, "projectId" | "environment" | "id">, kind: TrackKind, tag: string) => videoKey(row, kind, `${tag}.vtt`);

/** The video's track of that kind in a canonical language tag, or undefined (`db` may be a transaction). */
export function trackRow<K extends TrackKind>(db: Reader, kind: K, videoId: string, tag: string): TrackRow<K> | undefined {
  const table: (typeof TABLES)[TrackKind] = TABLES[kind];
  return db.select().from(table).where(and(eq(table.videoId, videoId), eq(table.language, tag))).get() as TrackRow<K> | undefined;
}

/** The file of a video's track in a language (as named in a public URL), or null when there is none. */
export function trackBlob(app: Pick<AppContext, "db" | "storage">, kind: TrackKind, video: VideoRow, tag: string): Blob | null {
  const row = trackRow(app.db, kind, video.id, tag);
  return row ? app.storage.get(trackKey(video, kind, row.language)) : null;
}

/** The scope's video and its track in `language`: 404 `videoId`, 400 `language` (not a tag), 404 `language` (no track). */
export function findTrack<K extends TrackKind>(ctx: ScopeCtx, kind: K, videoId: string, language: string): { video: VideoRow; row: TrackRow<K> } {
  const video = findVideo(ctx, videoId);
  const row = trackRow(ctx.db, kind, video.id, captionLanguage(language).tag);
  if (!row) throw notFound("language");
  return { video, row };
}

/**
 * POST /videos/{id}/{kind}/{language}: receives the WebVTT file (multipart, any field name) and
 * renames it into place inside the transaction in which `write` inserts or updates its row, so the
 * file and the row change together. Returns the video and the stored row.
 */
export async function uploadTrack<K extends TrackKind>(
  ctx: ScopeCtx, kind: K, videoId: string, language: string, request: UploadRequest,
  write: (tx: Tx, tag: string, now: string) => void,
): Promise<{ video: VideoRow; row: TrackRow<K> }> {
  const video = findVideo(ctx, videoId);
  const { tag } = captionLanguage(language);
  const file = await receiveFile(ctx, request, MAX_VTT_BYTES);
  const now = atom(ctx.clock.now());
  try {
    ctx.db.transaction((tx) => {
      file.temp.commitSync(trackKey(video, kind, tag));
      write(tx, tag, now);
    });
  } catch (err) {
    await file.temp.abort();
    throw err;
  }
  return { video, row: trackRow(ctx.db, kind, video.id, tag)! };
}

/** DELETE /videos/{id}/{kind}/{language}: removes the track's row, then its file. */
export async function deleteTrack(ctx: ScopeCtx, kind: TrackKind, videoId: string, language: string): Promise<void> {
  const { video, row } = findTrack(ctx, kind, videoId, language);
  const table: (typeof TABLES)[TrackKind] = TABLES[kind];
  ctx.db.delete(table).where(and(eq(table.videoId, video.id), eq(table.language, row.language))).run();
  await ctx.storage.delete(trackKey(video, kind, row.language));
}

/** GET /videos/{id}/{kind}: a page of the video's tracks of that kind, oldest first, each shown by `body`. */
export function listTracks<K extends TrackKind, B>(
  ctx: ScopeCtx, kind: K, videoId: string, input: { url: string; page: Page }, body: (video: VideoRow, row: TrackRow<K>) => B,
) {
  const video = findVideo(ctx, videoId);
  const table: (typeof TABLES)[TrackKind] = TABLES[kind];
  const where = eq(table.videoId, videoId);
  const total = ctx.db.select({ n: count() }).from(table).where(where).get()!.n;
  const rows = ctx.db.select().from(table).where(where).orderBy(asc(table.createdAt), asc(table.language))
    .limit(input.page.pageSize).offset(offsetOf(input.page)).all() as TrackRow<K>[];
  return paginate(input.url, input.page, total, rows.map((r) => body(video, r)));
}
