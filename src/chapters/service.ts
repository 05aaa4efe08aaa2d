import { asc, eq } from "drizzle-orm";
import type { AppContext, ScopeCtx } from "../context";
import { chapters } from "../db/schema";
import { deleteTrack, findTrack, listTracks, trackKey, uploadTrack } from "../captions/tracks";
import { parseVtt } from "../captions/vtt";
import type { Page } from "../http/pagination";
import type { UploadRequest } from "../uploads/receive";
import { vodAssetUrl, type VideoRow } from "../videos/body";

type ChapterRow = typeof chapters.$inferSelect;

/** The api.video chapter object; a private video's `src` carries a fresh single-use token. */
export function chapterBody(app: Pick<AppContext, "urls" | "db" | "clock" | "config">, video: Pick<VideoRow, "id" | "environment" | "public">, row: ChapterRow) {
  return {
    uri: `/videos/${video.id}/chapters/${row.language}`,
    src: vodAssetUrl(app, video, `chapters/${row.language}.vtt`),
    language: row.language,
  };
}

/** POST /videos/{id}/chapters/{language}: stores the uploaded WebVTT chapter file, replacing one in that language. */
export async function uploadChapters(ctx: ScopeCtx, videoId: string, language: string, request: UploadRequest) {
  const { video, row } = await uploadTrack(ctx, "chapters", videoId, language, request, (tx, tag, now) => {
    tx.insert(chapters).values({ videoId, language: tag, createdAt: now }).onConflictDoNothing().run();
  });
  return chapterBody(ctx, video, row);
}

/** GET /videos/{id}/chapters/{language}. */
export function getChapters(ctx: ScopeCtx, videoId: string, language: string) {
  const { video, row } = findTrack(ctx, "chapters", videoId, language);
  return chapterBody(ctx, video, row);
}

/** DELETE /videos/{id}/chapters/{language}: removes the row and its file. */
export function deleteChapters(ctx: ScopeCtx, videoId: string, language: string): Promise<void> {
  return deleteTrack(ctx, "chapters", videoId, language);
}

/** GET /videos/{id}/chapters: paginated, oldest first. */
export function listChapters(ctx: ScopeCtx, videoId: string, input: { url: string; page: Page }) {
  return listTracks(ctx, "chapters", videoId, input, (video, row) => chapterBody(ctx, video, row));
}

export interface PlayerChapter {
  startS: number;
  title: string;
}

/**
 * The chapters the player page lists: the file in the video's language, else the first uploaded;
 * each cue's start and first line. Empty when the video has none.
 */
export async function playerChapters(app: AppContext, video: VideoRow): Promise<{ language: string; chapters: PlayerChapter[] } | null> {
  const rows = app.db.select().from(chapters).where(eq(chapters.videoId, video.id)).orderBy(asc(chapters.createdAt)).all();
  const primary = video.language?.split("-")[0].toLowerCase();
  const pick = rows.find((r) => r.language === video.language) ?? rows.find((r) => r.language.split("-")[0] === primary) ?? rows[0];
  if (!pick) return null;
  const blob = app.storage.get(trackKey(video, "chapters", pick.language));
  if (!blob) return null;
  const cues = parseVtt(await blob.text());
  return { language: pick.language, chapters: cues.map((c) => ({ startS: c.startS, title: c.text.split("\n")[0] })) };
}
