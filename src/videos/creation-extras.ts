// POST /videos's write-only `watermark` and `clip` (reference §3, §8.2): checked with the other
// attributes, stored on the row, and applied by the encode job when the source arrives.
import type { ScopeCtx } from "../context";
import { checkClip } from "../encoding/clip";
import { invalidAttribute, invalidAttributes, invalidProblem, type Problem } from "../http/errors";
import { newId } from "../ids";
import { placementProblems, storedWatermark, type StoredWatermark, type WatermarkRequest } from "../watermarks/placement";
import { watermarkInScope, watermarkKey, type WatermarkRow } from "../watermarks/service";
import type { VideoRow } from "./body";
import { inputProblems, videoKey, type VideoInput } from "./service";

export interface CreationExtras {
  watermark?: WatermarkRequest;
  clip?: { startTimecode?: string; endTimecode?: string };
}

/** The storage key of a video's own copy of its watermark image. */
export const videoWatermarkKey = (row: Pick<VideoRow, "projectId" | "environment" | "id">, format: string) => videoKey(row, `watermark.${format}`);

/** The stored watermark of a video row, or null. */
export const watermarkOf = (row: { watermark: string | null }): StoredWatermark | null => (row.watermark ? (JSON.parse(row.watermark) as StoredWatermark) : null);

/**
 * Checks `watermark` and `clip`: every problem (an id that is not one of this scope's watermarks is
 * a 400 on `watermark[id]`: POST /videos answers no 404), the column values, and the image to copy.
 */
function checkCreationExtras(ctx: ScopeCtx, input: CreationExtras): { problems: Problem[]; columns: Partial<VideoRow>; image: WatermarkRow | null } {
  const problems: Problem[] = [];
  const columns: Partial<VideoRow> = {};
  let image: WatermarkRow | null = null;
  if (input.watermark) {
    problems.push(...placementProblems(input.watermark));
    const id = input.watermark.id;
    if (id) {
      image = watermarkInScope(ctx, id) ?? null;
      if (!image) problems.push(invalidProblem("watermark[id]", "This attribute must be the id of one of your watermarks."));
    }
    if (image) columns.watermark = JSON.stringify(storedWatermark(input.watermark, image.id, image.format));
  }
  if (input.clip) {
    const checked = checkClip(input.clip);
    problems.push(...checked.problems);
    if (checked.clip) columns.clip = JSON.stringify(checked.clip);
  }
  return { problems, columns, image };
}

/** Copies the watermark image under the video: deleting the watermark later must not change videos given it. */
async function keepWatermarkImage(ctx: ScopeCtx, video: Pick<VideoRow, "projectId" | "environment" | "id">, image: WatermarkRow): Promise<void> {
  const blob = ctx.storage.get(watermarkKey(image));
  // Deleted between the check and now.
  if (!blob) throw invalidAttribute("watermark[id]", "This attribute must be the id of one of your watermarks.");
  await ctx.storage.put(videoWatermarkKey(video, image.format), blob);
}

/**
 * Runs `create` (a synchronous insert, possibly inside an import's transaction) with the extra
 * columns of `watermark` and `clip` and the new video's id. Every problem, the other attributes'
 * included, is reported before anything is written; the watermark image is copied under the video
 * first (a copy is async, the insert may not be) and removed again if `create` throws.
 */
export async function withCreationExtras<T>(ctx: ScopeCtx, input: VideoInput & CreationExtras, create: (extra: Partial<VideoRow>) => T): Promise<T> {
  const checked = checkCreationExtras(ctx, input);
  if (checked.problems.length) throw invalidAttributes([...inputProblems(input), ...checked.problems]);
  const video = { projectId: ctx.projectId, environment: ctx.environment, id: newId("vi") };
  if (checked.image) await keepWatermarkImage(ctx, video, checked.image);
  try {
    return create({ id: video.id, ...checked.columns });
  } catch (err) {
    if (checked.image) await ctx.storage.delete(videoKey(video));
    throw err;
  }
}
