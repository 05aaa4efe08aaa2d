import type { AppContext } from "../context";
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

/** The unremovable "SANDBOX" mark burned into sandbox renditions, bottom right. */
export function sandboxWatermark(app: AppContext): { file: string; filter: string } {
  return { file: app.storage.localPath(KEY), filter: "overlay=W-w-16:H-h-16" };
}
