import { and, asc, count, desc, eq, sql } from "drizzle-orm";
import { atom } from "../clock";
import type { ScopeCtx } from "../context";
import { watermarks } from "../db/schema";
import { invalidFile, notFound } from "../http/errors";
import { offsetOf, paginate, type Page } from "../http/pagination";
import { newId } from "../ids";
import { MediaError, runFfmpeg } from "../media/ffmpeg";
import { imageCheckArgs } from "../media/args-image";
import { imageSize } from "../media/image-size";
import type { ReceivedFile, UploadRequest } from "../uploads/receive";
import { receiveThumbnail, type ImageRules } from "../videos/thumbnail";

export type WatermarkRow = typeof watermarks.$inferSelect;

/** Watermarks are small overlays; 10 MiB is generous and keeps a stray video out. */
export const MAX_WATERMARK_BYTES = 10 * 1024 * 1024;
/** Larger than any rendition (2160p): a bigger image can only be scaled down, and costs memory on every encode. */
export const MAX_WATERMARK_SIDE = 4096;

const inScope = (ctx: ScopeCtx) => and(eq(watermarks.projectId, ctx.projectId), eq(watermarks.environment, ctx.environment));

/** The storage key of a watermark's image. */
export const watermarkKey = (row: Pick<WatermarkRow, "projectId" | "environment" | "id" | "format">) =>
  [row.projectId, row.environment, "watermarks", `${row.id}.${row.format}`] as const;

const body = (row: WatermarkRow) => ({ watermarkId: row.id, createdAt: row.createdAt });

const invalidImage = (detail: string) => invalidFile(detail);

const WATERMARK_RULES: ImageRules = {
  maxBytes: MAX_WATERMARK_BYTES,
  types: ["image/jpeg", "image/png"],
  refused: () => invalidImage("Watermarks must be JPEG or PNG images."),
};

// The pixel size from the header; 256 KiB reaches the frame header past any EXIF or colour profile.
async function checkSize(file: ReceivedFile): Promise<{ width: number; height: number }> {
  const size = imageSize(new Uint8Array(await file.temp.blob().slice(0, 256 * 1024).arrayBuffer()));
  if (!size) throw invalidImage("The JPEG or PNG header could not be read.");
  if (size.width > MAX_WATERMARK_SIDE || size.height > MAX_WATERMARK_SIDE) {
    throw invalidImage(`Watermarks may be at most ${MAX_WATERMARK_SIDE}×${MAX_WATERMARK_SIDE} pixels; this one is ${size.width}×${size.height}.`);
  }
  return size;
}

// A header can be fine over a broken body: decode it once now rather than fail every encode later.
// Without ffmpeg nothing can be encoded anyway, and the header check stands alone.
async function checkDecodes(ctx: ScopeCtx, path: string): Promise<void> {
  if ("missing" in ctx.media) return;
  try {
    await runFfmpeg(ctx.media, imageCheckArgs(path), { nice: true });
  } catch (err) {
    if (err instanceof MediaError) throw invalidImage(`The image could not be decoded: ${err.reason}`);
    throw err;
  }
}

/** POST /watermarks: stores one JPEG or PNG (its type read from its bytes, then decoded) as a new watermark. */
export async function uploadWatermark(ctx: ScopeCtx, request: UploadRequest) {
  // The shared receive-and-check step of thumbnails and logos: one file part, its real type.
  const file = await receiveThumbnail(ctx, request, WATERMARK_RULES);
  let size: { width: number; height: number };
  try {
    size = await checkSize(file);
  } catch (err) {
    await file.temp.abort();
    throw err;
  }
  const row: WatermarkRow = {
    id: newId("watermark_"), projectId: ctx.projectId, environment: ctx.environment,
    format: file.type === "image/png" ? "png" : "jpg", ...size, createdAt: atom(ctx.clock.now()),
  };
  // File first, then the row: a listed watermark always has its image.
  await file.temp.commit(watermarkKey(row));
  try {
    await checkDecodes(ctx, ctx.storage.localPath(watermarkKey(row)));
    ctx.db.insert(watermarks).values(row).run();
  } catch (err) {
    await ctx.storage.delete(watermarkKey(row));
    throw err;
  }
  return body(row);
}

/** GET /watermarks: this scope's watermarks by creation time (ascending unless asked otherwise). */
export function listWatermarks(ctx: ScopeCtx, input: { url: string; page: Page; sortOrder: "asc" | "desc" }) {
  const total = ctx.db.select({ n: count() }).from(watermarks).where(inScope(ctx)).get()!.n;
  const order = input.sortOrder === "desc" ? desc : asc;
  const rows = ctx.db.select().from(watermarks).where(inScope(ctx))
    .orderBy(order(watermarks.createdAt), order(sql`rowid`))
    .limit(input.page.pageSize).offset(offsetOf(input.page)).all();
  return paginate(input.url, input.page, total, rows.map(body));
}

/** The watermark of this scope, or undefined (another project's id looks unknown). */
export function watermarkInScope(ctx: ScopeCtx, watermarkId: string): WatermarkRow | undefined {
  return ctx.db.select().from(watermarks).where(and(inScope(ctx), eq(watermarks.id, watermarkId))).get();
}

/** The watermark of this scope, or 404 naming `watermarkId`. */
function findWatermark(ctx: ScopeCtx, watermarkId: string): WatermarkRow {
  const row = watermarkInScope(ctx, watermarkId);
  if (!row) throw notFound("watermarkId");
  return row;
}

/** DELETE /watermarks/{id}: removes the row and its image; videos already given it keep their own copy. */
export async function deleteWatermark(ctx: ScopeCtx, watermarkId: string): Promise<void> {
  const row = findWatermark(ctx, watermarkId);
  ctx.db.delete(watermarks).where(eq(watermarks.id, row.id)).run();
  await ctx.storage.delete(watermarkKey(row));
}
