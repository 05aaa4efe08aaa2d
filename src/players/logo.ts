import { and, eq } from "drizzle-orm";
import { atom } from "../clock";
import type { Environment } from "../config";
import type { AppContext, ScopeCtx } from "../context";
import { playerThemes } from "../db/schema";
import { ApiError, invalidAttribute, invalidFile, notFound } from "../http/errors";
import type { UploadRequest } from "../uploads/receive";
import { receiveThumbnail, type ImageRules } from "../videos/thumbnail";
import { playerKey } from "./body";
import { imageSize } from "../media/image-size";
import { findPlayer, getPlayer } from "./service";

/** api.video's limits for a logo: 100 KiB and 200×100 pixels. */
export const MAX_LOGO_BYTES = 100 * 1024;
export const MAX_LOGO_WIDTH = 200;
export const MAX_LOGO_HEIGHT = 100;

const LOGO_RULES: ImageRules = {
  maxBytes: MAX_LOGO_BYTES,
  types: ["image/jpeg", "image/png"],
  refused: () => new ApiError(400, "uploaded-file-extension-invalid", "Only ['jpg', 'JPG', 'jpeg', 'JPEG', 'png', 'PNG'] extensions are supported.", {
    name: "file", detail: "A logo must be a JPEG or PNG image.",
  }),
};

const badFile = (title: string, detail: string) => invalidFile(detail, title);

// The optional `link` field: absent or empty means no link; otherwise an http(s) URL. The official
// Node client sends the text "undefined" when called without a link (its `typeof link !== undefined`
// is always true), so that text means no link too.
function logoLink(value: string | undefined): string | null {
  const link = value?.trim();
  if (!link || link === "undefined") return null;
  try {
    const url = new URL(link);
    if ((url.protocol === "http:" || url.protocol === "https:") && url.hostname && link.length <= 2048) return link;
  } catch {
    // reported below
  }
  throw invalidAttribute("link", "This attribute must be an http or https URL.");
}

/** POST /players/{playerId}/logo: stores a jpeg or png of at most 100 KiB and 200×100 px, and where a click on it leads. */
export async function uploadLogo(ctx: ScopeCtx, playerId: string, request: UploadRequest) {
  const row = findPlayer(ctx, playerId);
  const file = await receiveThumbnail(ctx, request, LOGO_RULES);
  try {
    const size = imageSize(await file.temp.blob().bytes());
    if (!size) throw badFile("The uploaded file is not a readable image.", "The JPEG or PNG header could not be read.");
    if (size.width > MAX_LOGO_WIDTH || size.height > MAX_LOGO_HEIGHT) {
      throw badFile("The uploaded image is too large.", `A logo may be at most ${MAX_LOGO_WIDTH}×${MAX_LOGO_HEIGHT} pixels; this one is ${size.width}×${size.height}.`);
    }
    const link = logoLink(file.fields.link);
    file.temp.commitSync(playerKey(row, "logo"));
    ctx.db.update(playerThemes)
      .set({ logoFormat: file.type === "image/png" ? "png" : "jpg", logoLink: link, updatedAt: atom(ctx.clock.now()) })
      .where(eq(playerThemes.id, row.id)).run();
  } catch (err) {
    await file.temp.abort();
    throw err;
  }
  return getPlayer(ctx, playerId);
}

/** DELETE /players/{playerId}/logo: removes the logo file and its link. */
export async function deleteLogo(ctx: ScopeCtx, playerId: string): Promise<void> {
  const row = findPlayer(ctx, playerId);
  ctx.db.update(playerThemes).set({ logoFormat: null, logoLink: null, updatedAt: atom(ctx.clock.now()) }).where(eq(playerThemes.id, row.id)).run();
  await ctx.storage.delete(playerKey(row, "logo"));
}

/** The logo at `assets.logo`, public like the rest of delivery, on its environment's listener only. */
export function logoFile(app: AppContext, environment: Environment, playerId: string): Response {
  const row = app.db.select().from(playerThemes).where(and(eq(playerThemes.id, playerId), eq(playerThemes.environment, environment))).get();
  const blob = row?.logoFormat ? app.storage.get(playerKey(row, "logo")) : null;
  if (!row || !blob) throw notFound("playerId");
  return new Response(blob, {
    headers: {
      "content-type": row.logoFormat === "png" ? "image/png" : "image/jpeg",
      "access-control-allow-origin": "*",
      "cross-origin-resource-policy": "cross-origin",
      "x-content-type-options": "nosniff",
      // One URL for every logo a theme ever has: caches must ask again.
      "cache-control": "no-cache",
    },
  });
}
