import { and, eq, ne } from "drizzle-orm";
import { atom } from "../clock";
import type { AppContext, ScopeCtx } from "../context";
import { captions } from "../db/schema";
import type { Page } from "../http/pagination";
import type { UploadRequest } from "../uploads/receive";
import { vodAssetUrl, type VideoRow } from "../videos/body";
import { nativeName } from "./languages";
import { deleteTrack, findTrack, listTracks, trackKey, trackRow, uploadTrack } from "./tracks";

export type CaptionRow = typeof captions.$inferSelect;

/** Where a caption file lives (one per video and language). */
export const captionKey = (row: Pick<VideoRow, "projectId" | "environment" | "id">, tag: string) => trackKey(row, "captions", tag);

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

/** POST /videos/{id}/captions/{language}: stores the uploaded WebVTT file (any field name), replacing one in that language. */
export async function uploadCaption(ctx: ScopeCtx, videoId: string, language: string, request: UploadRequest) {
  const { video, row } = await uploadTrack(ctx, "captions", videoId, language, request, (tx, tag, now) => {
    tx.insert(captions).values({ videoId, language: tag, createdAt: now, updatedAt: now })
      .onConflictDoUpdate({ target: [captions.videoId, captions.language], set: { generated: false, updatedAt: now } }).run();
  });
  return captionBody(ctx, video, row);
}

/** GET /videos/{id}/captions/{language}. */
export function getCaption(ctx: ScopeCtx, videoId: string, language: string) {
  const { video, row } = findTrack(ctx, "captions", videoId, language);
  return captionBody(ctx, video, row);
}

/** PATCH /videos/{id}/captions/{language} `{default}`: true makes it the video's only default caption. */
export function updateCaption(ctx: ScopeCtx, videoId: string, language: string, input: { default?: boolean }) {
  const { video, row: caption } = findTrack(ctx, "captions", videoId, language);
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
  return captionBody(ctx, video, trackRow(ctx.db, "captions", video.id, caption.language)!);
}

/** DELETE /videos/{id}/captions/{language}: removes the track and its file. */
export function deleteCaption(ctx: ScopeCtx, videoId: string, language: string): Promise<void> {
  return deleteTrack(ctx, "captions", videoId, language);
}

/** GET /videos/{id}/captions: paginated, oldest first. */
export function listCaptions(ctx: ScopeCtx, videoId: string, input: { url: string; page: Page }) {
  return listTracks(ctx, "captions", videoId, input, (video, row) => captionBody(ctx, video, row));
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
  const existing = trackRow(app.db, "captions", video.id, tag);
  if (existing && !existing.generated) return false;
  const temp = app.storage.tempFile();
  await temp.write(new TextEncoder().encode(vtt));
  await temp.end();
  const now = atom(app.clock.now());
  try {
    app.db.transaction((tx) => {
      const again = trackRow(tx, "captions", video.id, tag);
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
