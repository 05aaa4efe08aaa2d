import { and, eq, inArray, isNull } from "drizzle-orm";
import { atom } from "../clock";
import type { AppContext, ScopeCtx } from "../context";
import { jobs, videos } from "../db/schema";
import { invalidAttributes, invalidProblem, notFound, type Problem } from "../http/errors";
import { newId } from "../ids";
import { videoBody, type VideoRow } from "./body";
import { languageProblem } from "./languages";
import { afterVideoSaved, checkVideoUpdate } from "../summaries/video-hooks";
import { planLateMp4 } from "../encoding/mp4";

export const ENCODE_JOB = "video.encode";
/** Makes the MP4 of a video whose `mp4Support` was turned on after its encode (encoding/mp4.ts). */
export const MP4_JOB = "video.mp4";
/** Downloads or copies the source given as `source` on create (imports/job.ts). */
export const IMPORT_JOB = "video.import";

export interface VideoInput {
  title?: string;
  description?: string;
  public?: boolean;
  panoramic?: boolean;
  mp4Support?: boolean;
  playerId?: string | null;
  tags?: string[];
  metadata?: { key: string; value: string }[];
  language?: string | null;
  transcript?: boolean;
  transcriptSummary?: boolean;
  transcriptSummaryAttributes?: string[];
  /** Create only: a URL to download or a videoId to copy (imports/service.ts). */
  source?: string;
}

const inScope = (ctx: ScopeCtx) => and(eq(videos.projectId, ctx.projectId), eq(videos.environment, ctx.environment));

/** The storage folder holding everything of one video. */
export const videoKey = (row: Pick<VideoRow, "projectId" | "environment" | "id">, ...rest: string[]) =>
  [row.projectId, row.environment, "videos", row.id, ...rest] as const;

/** The video row of this scope, or 404 naming `videoId` (another project's id, or a discarded one, looks unknown). */
export function findVideo(ctx: ScopeCtx, videoId: string): VideoRow {
  const row = ctx.db.select().from(videos).where(and(inScope(ctx), eq(videos.id, videoId), isNull(videos.discardedAt))).get();
  if (!row) throw notFound("videoId");
  return row;
}

/** Rules the schema cannot express: language tags and summary attributes. */
export function inputProblems(input: VideoInput): Problem[] {
  const problems: Problem[] = [];
  // null clears the language; anything else, the empty string included, must be a supported tag.
  if (input.language !== undefined && input.language !== null) {
    const why = languageProblem(input.language);
    if (why) problems.push(invalidProblem("language", why));
  }
  input.transcriptSummaryAttributes?.forEach((a, i) => {
    if (a !== "abstract" && a !== "takeaways") {
      problems.push(invalidProblem(`transcriptSummaryAttributes[${i}]`, "This attribute must be one of: abstract, takeaways."));
    }
  });
  return problems;
}

function columns(input: VideoInput): Partial<VideoRow> {
  const c: Partial<VideoRow> = {};
  if (input.title !== undefined) c.title = input.title;
  if (input.description !== undefined) c.description = input.description;
  if (input.public !== undefined) c.public = input.public;
  if (input.panoramic !== undefined) c.panoramic = input.panoramic;
  if (input.mp4Support !== undefined) c.mp4Support = input.mp4Support;
  if (input.playerId !== undefined) c.playerId = input.playerId;
  if (input.tags !== undefined) c.tags = JSON.stringify([...new Set(input.tags.map((t) => t.trim()).filter(Boolean))]);
  if (input.metadata !== undefined) c.metadata = JSON.stringify(input.metadata.map(({ key, value }) => ({ key, value })));
  if (input.language !== undefined) {
    c.language = input.language;
    c.languageOrigin = input.language === null ? null : "api";
  }
  if (input.transcript !== undefined) c.transcript = input.transcript;
  if (input.transcriptSummary !== undefined) c.transcriptSummary = input.transcriptSummary;
  if (input.transcriptSummaryAttributes !== undefined) c.transcriptSummaryAttributes = JSON.stringify(input.transcriptSummaryAttributes);
  return c;
}

/** Inserts a video row (no source yet) and returns it; used by the API and by token uploads. */
export function insertVideo(ctx: ScopeCtx, input: VideoInput & { title: string }, extra: Partial<VideoRow> = {}): VideoRow {
  const problems = inputProblems(input);
  if (problems.length) throw invalidAttributes(problems);
  const now = atom(ctx.clock.now());
  const row = { id: newId("vi"), projectId: ctx.projectId, environment: ctx.environment, createdAt: now, updatedAt: now, title: input.title, ...columns(input), ...extra };
  ctx.db.insert(videos).values(row).run();
  return findVideo(ctx, row.id);
}

/** POST /videos: creates a video container waiting for its source (`extra` columns: an import's); `transcript` and `transcriptSummary` start a transcript and a summary. */
export function createVideo(ctx: ScopeCtx, input: VideoInput & { title: string }, extra: Partial<VideoRow> = {}) {
  const row = insertVideo(ctx, input, extra);
  afterVideoSaved(ctx, null, row, input);
  return videoBody(ctx, row);
}

/** GET /videos/{id}. */
export function getVideo(ctx: ScopeCtx, videoId: string) {
  return videoBody(ctx, findVideo(ctx, videoId));
}

/**
 * PATCH /videos/{id}: changes the given fields (tags and metadata replace the whole list); may start
 * a summary (409 while one exists) or a transcript; `mp4Support` turned on may start an MP4 job.
 */
export function updateVideo(ctx: ScopeCtx, videoId: string, input: VideoInput) {
  const before = findVideo(ctx, videoId);
  const problems = inputProblems(input);
  if (problems.length) throw invalidAttributes(problems);
  checkVideoUpdate(ctx, videoId, input);
  const changes = columns(input);
  let mp4Planned = false;
  if (Object.keys(changes).length) {
    ctx.db.transaction((tx) => {
      tx.update(videos).set({ ...changes, updatedAt: atom(ctx.clock.now()) }).where(eq(videos.id, videoId)).run();
      // Turned on after the encode planned no MP4: make it now. Turned off: the file is kept, hidden.
      if (changes.mp4Support && !before.mp4Support) mp4Planned = planLateMp4(ctx, tx, videoId);
    });
  }
  if (mp4Planned) ctx.queue.notify();
  afterVideoSaved(ctx, before, findVideo(ctx, videoId), input);
  return getVideo(ctx, videoId);
}

/** api.video's Video Restore keeps a discarded video this long. */
export const DISCARD_KEEP_MS = 90 * 24 * 3600 * 1000;

/**
 * DELETE /videos/{id}: deletes the video with its media and any pending or running encode; with
 * VIDHOST_VIDEO_RESTORE it discards instead (restorable for 90 days). A discarded video's encode
 * is left to finish, so a restored video comes back whole.
 */
export async function deleteVideo(ctx: ScopeCtx, videoId: string): Promise<void> {
  const row = findVideo(ctx, videoId);
  if (!ctx.config.videoRestore) return removeVideo(ctx, row);
  const now = ctx.clock.now();
  ctx.db.update(videos).set({ discardedAt: atom(now), purgeAt: now.getTime() + DISCARD_KEEP_MS, updatedAt: atom(now) }).where(eq(videos.id, row.id)).run();
}

/** Shared by the API and the sandbox purge: cancels imports and encodes, deletes the row, then the files. */
export async function removeVideo(app: AppContext, row: VideoRow): Promise<void> {
  // By id, not by the payload's videoId: that would scan the whole jobs table on every delete. The
  // video's finished jobs go with the prune of finished jobs (src/jobs/prune.ts).
  const cancelled = [ENCODE_JOB, IMPORT_JOB, MP4_JOB].flatMap((kind) => app.queue.cancel(kind, (payload) => (payload as { videoId?: string }).videoId === row.id));
  app.db.transaction((tx) => {
    if (cancelled.length) tx.delete(jobs).where(inArray(jobs.id, cancelled)).run();
    tx.delete(videos).where(eq(videos.id, row.id)).run();
  });
  await app.storage.delete(videoKey(row));
}
