import { and, asc, count, eq } from "drizzle-orm";
import { atom } from "../clock";
import type { AppContext, ScopeCtx } from "../context";
import { chapters } from "../db/schema";
import { captionLanguage } from "../captions/languages";
import { MAX_VTT_BYTES } from "../captions/service";
import { parseVtt } from "../captions/vtt";
import { notFound } from "../http/errors";
import { offsetOf, paginate, type Page } from "../http/pagination";
import { receiveFile, type UploadRequest } from "../uploads/receive";
import { vodAssetUrl, type VideoRow } from "../videos/body";
import { findVideo, videoKey } from "../videos/service";

type ChapterRow = typeof chapters.$inferSelect;

/** Where a chapter file lives (one per video and language). */
export const chapterKey = (row: Pick<VideoRow, "projectId" | "environment" | "id">, tag: string) => videoKey(row, "chapters", `${tag}.vtt`);

/** The api.video chapter object; a private video's `src` carries a fresh single-use token. */
export function chapterBody(app: Pick<AppContext, "urls" | "db" | "clock" | "config">, video: Pick<VideoRow, "id" | "environment" | "public">, row: ChapterRow) {
  return {
    uri: `/videos/${video.id}/chapters/${row.language}`,
    src: vodAssetUrl(app, video, `chapters/${row.language}.vtt`),
    language: row.language,
  };
}

function findChapter(ctx: ScopeCtx, video: VideoRow, tag: string): ChapterRow {
  const row = ctx.db.select().from(chapters).where(and(eq(chapters.videoId, video.id), eq(chapters.language, tag))).get();
  if (!row) throw notFound("language");
  return row;
}

/** POST /videos/{id}/chapters/{language}: stores the uploaded WebVTT chapter file, replacing one in that language. */
export async function uploadChapters(ctx: ScopeCtx, videoId: string, language: string, request: UploadRequest) {
  const video = findVideo(ctx, videoId);
  const { tag } = captionLanguage(language);
  const file = await receiveFile(ctx, request, MAX_VTT_BYTES);
  try {
    ctx.db.transaction((tx) => {
      file.temp.commitSync(chapterKey(video, tag));
      tx.insert(chapters).values({ videoId, language: tag, createdAt: atom(ctx.clock.now()) }).onConflictDoNothing().run();
    });
  } catch (err) {
    await file.temp.abort();
    throw err;
  }
  return chapterBody(ctx, video, findChapter(ctx, video, tag));
}

/** GET /videos/{id}/chapters/{language}. */
export function getChapters(ctx: ScopeCtx, videoId: string, language: string) {
  const video = findVideo(ctx, videoId);
  return chapterBody(ctx, video, findChapter(ctx, video, captionLanguage(language).tag));
}

/** DELETE /videos/{id}/chapters/{language}: removes the row and its file. */
export async function deleteChapters(ctx: ScopeCtx, videoId: string, language: string): Promise<void> {
  const video = findVideo(ctx, videoId);
  const row = findChapter(ctx, video, captionLanguage(language).tag);
  ctx.db.delete(chapters).where(and(eq(chapters.videoId, videoId), eq(chapters.language, row.language))).run();
  await ctx.storage.delete(chapterKey(video, row.language));
}

/** GET /videos/{id}/chapters: paginated, oldest first. */
export function listChapters(ctx: ScopeCtx, videoId: string, input: { url: string; page: Page }) {
  const video = findVideo(ctx, videoId);
  const where = eq(chapters.videoId, videoId);
  const total = ctx.db.select({ n: count() }).from(chapters).where(where).get()!.n;
  const rows = ctx.db.select().from(chapters).where(where).orderBy(asc(chapters.createdAt), asc(chapters.language))
    .limit(input.page.pageSize).offset(offsetOf(input.page)).all();
  return paginate(input.url, input.page, total, rows.map((r) => chapterBody(ctx, video, r)));
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
  const blob = app.storage.get(chapterKey(video, pick.language));
  if (!blob) return null;
  const cues = parseVtt(await blob.text());
  return { language: pick.language, chapters: cues.map((c) => ({ startS: c.startS, title: c.text.split("\n")[0] })) };
}
