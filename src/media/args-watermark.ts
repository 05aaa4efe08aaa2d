// api.video's watermark placement (reference §8.2: top/left/bottom/right in px or %, width/height
// in %, px or "initial", opacity in %) as the filters hlsLadderArgs burns in at the source's size.
import type { WatermarkInput } from "./args-ladder";

/** A watermark's placement as the API receives it; every field optional. */
export interface WatermarkPlacement {
  top?: string;
  left?: string;
  bottom?: string;
  right?: string;
  width?: string;
  height?: string;
  opacity?: string;
}

// "12px", "12" or "5%" (of `total`) → whole pixels; anything else → null (treated as unset).
function pixels(value: string | undefined, total: number): number | null {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(px|%)?\s*$/.exec(value ?? "");
  if (!m) return null;
  return Math.round(m[2] === "%" ? (Number(m[1]) * total) / 100 : Number(m[1]));
}

/** The WatermarkInput for `file` placed on a video of `video`'s display size; unset edges put it top-left. */
export function watermarkInput(file: string, p: WatermarkPlacement, video: { width: number; height: number }): WatermarkInput {
  const prepare: string[] = [];
  const w = p.width === "initial" ? null : pixels(p.width, video.width);
  const h = p.height === "initial" ? null : pixels(p.height, video.height);
  // One side given: -1 keeps the image's own aspect ratio.
  if (w !== null || h !== null) prepare.push(`scale=${w ?? -1}:${h ?? -1}`);
  const opacity = /^\s*(\d+(?:\.\d+)?)\s*%?\s*$/.exec(p.opacity ?? "");
  if (opacity && Number(opacity[1]) < 100) {
    // Scale the image's alpha channel (adding one to JPEGs) rather than blending the whole frame.
    prepare.push("format=rgba", `colorchannelmixer=aa=${Math.round(Number(opacity[1])) / 100}`);
  }
  const left = pixels(p.left, video.width);
  const right = pixels(p.right, video.width);
  const top = pixels(p.top, video.height);
  const bottom = pixels(p.bottom, video.height);
  // In overlay, W/H are the video's size and w/h the image's.
  const x = left !== null ? String(left) : right !== null ? `W-w-${right}` : "0";
  const y = top !== null ? String(top) : bottom !== null ? `H-h-${bottom}` : "0";
  return { file, ...(prepare.length > 0 ? { prepare: prepare.join(",") } : {}), filter: `overlay=${x}:${y}` };
}
