import type { AppContext } from "../context";
import type { WatermarkInput } from "../media/args";
import type { Storage } from "../media/storage";
// @ts-expect-error Bun types a `file` import as its path.
import watermarkAsset from "../media/assets/sandbox-watermark.png" with { type: "file" };

/** Sandbox sources are cut to 30 s (DESIGN.md seed rules). */
export const SANDBOX_LIMIT_S = 30;

const KEY = ["assets", "sandbox-watermark.png"] as const;

/** Copies the embedded watermark to a real file: inside the compiled binary it is not one ffmpeg can open. */
export async function installSandboxWatermark(storage: Storage): Promise<void> {
  await storage.put(KEY, Bun.file(watermarkAsset as string));
}

/**
 * The unremovable "SANDBOX" mark burned into sandbox renditions, bottom right, sized to the video
 * (it is overlaid at the source's display size, before scaling): a fifth of the width, at least
 * 96 px so it stays legible, instead of the image's own 264 px that covered most of a small video.
 */
export function sandboxWatermark(app: AppContext, video: { width: number; height: number }): WatermarkInput {
  const width = Math.min(video.width, Math.max(96, Math.round(video.width / 5 / 2) * 2));
  const margin = Math.max(8, Math.round(video.width / 80));
  return { file: app.storage.localPath(KEY), prepare: `scale=${width}:-1`, filter: `overlay=W-w-${margin}:H-h-${margin}` };
}
