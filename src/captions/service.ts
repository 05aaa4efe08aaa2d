import { and, asc, count, eq, ne } from "drizzle-orm";
import { atom } from "../clock";
import type { AppContext, ScopeCtx } from "../context";
import { captions } from "../db/schema";
import { notFound } from "../http/errors";
import { offsetOf, paginate, type Page } from "../http/pagination";
import { receiveFile, type UploadRequest } from "../uploads/receive";
import { vodAssetUrl, type VideoRow } from "../videos/body";
import { findVideo, videoKey } from "../videos/service";
import { captionLanguage, nativeName } from "./languages";

export type CaptionRow = typeof captions.$inferSelect;

/** Caption files are text: 16 MiB is hours of dense subtitles. */
export const MAX_VTT_BYTES = 16 * 1024 * 1024;

/** Where a caption file lives (one per video and language). */
export const captionKey = (row: Pick<VideoRow, "projectId" | "environment" | "id">, tag: string) => videoKey(row, "captions", `${tag}.vtt`);

/**
 * The api.video caption object; `generated` (Vidhost's addition) marks tracks made from speech. A
 * private video's `src` carries a fresh single-use token, like its other assets.
 */
export function captionBody(app: Pick<AppContext, "urls" | "db" | "clock" | "config">, video: Pick<VideoRow, "id" | "environment" | "public">, row: CaptionRow) {
  return {
    uri: `/videos/${video.id}/captions/${row.language}`,
    src: vodAssetUrl(app, video, `captions/${row.language}.vtt`),
    srclang: row.language,
    languageName: nativeName(row.language),
    default: row.isDefault,
    generated: row.generated,
  };
}

function findCaption(ctx: ScopeCtx, video: VideoRow, tag: string): CaptionRow {
  const row = ctx.db.select().from(captions).where(and(eq(captions.videoId, video.id), eq(captions.language, tag))).get();
  if (!row) throw notFound("language");
  return row;
}

/** POST /videos/{id}/captions/{language}: stores the uploaded WebVTT file (any field name), replacing one in that language. */
export async function uploadCaption(ctx: ScopeCtx, videoId: string, language: string, request: UploadRequest) {
  const video = findVideo(ctx, videoId);
  const { tag } = captionLanguage(language);
  const file = await receiveFile(ctx, request, MAX_VTT_BYTES);
  const now = atom(ctx.clock.now());
  try {
    // File and row change together: the file is renamed into place inside the transaction.
    ctx.db.transaction((tx) => {
      file.temp.commitSync(captionKey(video, tag));
      tx.insert(captions).values({ videoId, language: tag, createdAt: now, updatedAt: now })
        .onConflictDoUpdate({ target: [captions.videoId, captions.language], set: { generated: false, updatedAt: now } }).run();
    });
  } catch (err) {
    await file.temp.abort();
    throw err;
  }
  return captionBody(ctx, video, findCaption(ctx, video, tag));
}

/** GET /videos/{id}/captions/{language}. */
export function getCaption(ctx: ScopeCtx, videoId: string, language: string) {
  const video = findVideo(ctx, videoId);
  return captionBody(ctx, video, findCaption(ctx, video, captionLanguage(language).tag));
}

/** PATCH /videos/{id}/captions/{language} `{default}`: true makes it the video's only default caption. */
export function updateCaption(ctx: ScopeCtx, videoId: string, language: string, input: { default?: boolean }) {
  const video = findVideo(ctx, videoId);
  const caption = findCaption(ctx, video, captionLanguage(language).tag);
  if (input.default !== undefined) {
    const now = atom(ctx.clock.now());
    ctx.db.transaction((tx) => {
      if (input.default) {
        tx.update(captions).set({ isDefault: false, updatedAt: now })
          .where(and(eq(captions.videoId, videoId), eq(captions.isDefault, true), ne(captions.language, caption.language))).run();
      }
      tx.update(captions).set({ isDefault: input.default, updatedAt: now })
        .where(and(eq(captions.videoId, videoId), eq(captions.language, caption.language))).run();
    });
  }
  return captionBody(ctx, video, findCaption(ctx, video, caption.language));
}

/** DELETE /videos/{id}/captions/{language}: removes the track and its file. */
export async function deleteCaption(ctx: ScopeCtx, videoId: string, language: string): Promise<void> {
  const video = findVideo(ctx, videoId);
  const caption = findCaption(ctx, video, captionLanguage(language).tag);
  ctx.db.delete(captions).where(and(eq(captions.videoId, videoId), eq(captions.language, caption.language))).run();
  await ctx.storage.delete(captionKey(video, caption.language));
}

/** GET /videos/{id}/captions: paginated, oldest first. */
export function listCaptions(ctx: ScopeCtx, videoId: string, input: { url: string; page: Page }) {
  const video = findVideo(ctx, videoId);
  const where = eq(captions.videoId, videoId);
  const total = ctx.db.select({ n: count() }).from(captions).where(where).get()!.n;
  const rows = ctx.db.select().from(captions).where(where).orderBy(asc(captions.createdAt), asc(captions.language))
    .limit(input.page.pageSize).offset(offsetOf(input.page)).all();
  return paginate(input.url, input.page, total, rows.map((r) => captionBody(ctx, video, r)));
}

/** Every caption of a video, default first then by language (delivery: master playlist, player). */
export function videoCaptions(app: AppContext, videoId: string): CaptionRow[] {
  return app.db.select().from(captions).where(eq(captions.videoId, videoId)).all()
    .sort((a, b) => Number(b.isDefault) - Number(a.isDefault) || a.language.localeCompare(b.language));
}

/**
 * Stores a caption made from speech. An uploaded caption in that language is the user's and is
 * kept: then nothing is written and false is returned.
 */
export async function saveGeneratedCaption(app: AppContext, video: VideoRow, tag: string, vtt: string): Promise<boolean> {
  const existing = app.db.select().from(captions).where(and(eq(captions.videoId, video.id), eq(captions.language, tag))).get();
  if (existing && !existing.generated) return false;
  const temp = app.storage.tempFile();
  await temp.write(new TextEncoder().encode(vtt));
  await temp.end();
  const now = atom(app.clock.now());
  try {
    app.db.transaction((tx) => {
      const again = tx.select().from(captions).where(and(eq(captions.videoId, video.id), eq(captions.language, tag))).get();
      if (again && !again.generated) throw new KeptUpload();
      temp.commitSync(captionKey(video, tag));
      tx.insert(captions).values({ videoId: video.id, language: tag, generated: true, createdAt: now, updatedAt: now })
        .onConflictDoUpdate({ target: [captions.videoId, captions.language], set: { generated: true, updatedAt: now } }).run();
    });
  } catch (err) {
    await temp.abort();
    if (err instanceof KeptUpload) return false;
    throw err;
  }
  return true;
}

class KeptUpload extends Error {}
