// The `watermark` object of POST /videos (reference §8.2): which image, where, how big, how opaque.
// Checked when the video is created; stored with the image's format, which the video keeps a copy of.
import { invalidProblem, requiredProblem, type Problem } from "../http/errors";
import type { WatermarkPlacement } from "../media/args-watermark";

/** The request's object: every field a string, as api.video's clients send them. */
export interface WatermarkRequest extends WatermarkPlacement {
  id?: string;
}

/** What the video's `watermark` column holds. */
export interface StoredWatermark extends WatermarkPlacement {
  id: string;
  /** jpg | png: the extension of the video's copy of the image. */
  format: string;
}

const LENGTH = /^(\d+(?:\.\d+)?)(px|%)?$/;
const EDGES = ["top", "left", "bottom", "right"] as const;
const SIZES = ["width", "height"] as const;

// A px or % length (a bare number is px); % at most 100. Returns why not, or null.
function lengthProblem(value: string): string | null {
  const m = LENGTH.exec(value.trim());
  if (!m) return "must be a length in px or %, e.g. 10px or 5%";
  if (m[2] === "%" && Number(m[1]) > 100) return "must be at most 100%";
  return null;
}

/** Every rule the placement breaks (the id is checked against the scope by the caller). */
export function placementProblems(p: WatermarkRequest): Problem[] {
  const problems: Problem[] = [];
  if (p.id === undefined || p.id === "") problems.push(requiredProblem("watermark[id]"));
  for (const edge of EDGES) {
    const why = p[edge] !== undefined ? lengthProblem(p[edge]!) : null;
    if (why) problems.push(invalidProblem(`watermark[${edge}]`, `This attribute ${why}.`));
  }
  for (const size of SIZES) {
    const why = p[size] !== undefined && p[size]!.trim() !== "initial" ? lengthProblem(p[size]!) : null;
    if (why) problems.push(invalidProblem(`watermark[${size}]`, `This attribute ${why}, or initial.`));
  }
  if (p.top !== undefined && p.bottom !== undefined) problems.push(invalidProblem("watermark[bottom]", "Set top or bottom, not both."));
  if (p.left !== undefined && p.right !== undefined) problems.push(invalidProblem("watermark[right]", "Set left or right, not both."));
  if (p.opacity !== undefined) {
    const m = /^(\d+(?:\.\d+)?)%?$/.exec(p.opacity.trim());
    if (!m || Number(m[1]) > 100) problems.push(invalidProblem("watermark[opacity]", "This attribute must be a percentage from 0% to 100%."));
  }
  return problems;
}

/** The column value for a checked placement of the watermark `id` whose image is a `format`. */
export function storedWatermark(p: WatermarkRequest, id: string, format: string): StoredWatermark {
  const stored: StoredWatermark = { id, format };
  for (const k of [...EDGES, ...SIZES, "opacity"] as const) if (p[k] !== undefined) stored[k] = p[k]!.trim();
  return stored;
}
