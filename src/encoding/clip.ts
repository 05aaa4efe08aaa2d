// A video's clip (reference §3: `clip{startTimecode, endTimecode}` on create): checked when the
// video is created, resolved against the real source when it is encoded. The source file is kept
// whole; the encode, thumbnails and speech read only the window.
import { invalidProblem, type Problem } from "../http/errors";
import { MediaError } from "../media/media-error";
import { parseTimecode } from "../media/timecode";

/** What the `clip` column holds: the window in seconds (end null = to the end) and the timecodes as given. */
export interface StoredClip {
  startS: number;
  endS: number | null;
  startTimecode?: string;
  endTimecode?: string;
}

const TIMECODE = "This attribute must be a timecode: HH:MM:SS, HH:MM:SS.mmm, HH:MM:SS:ff or seconds.";

/**
 * Checks a clip given on create. Frames (`HH:MM:SS:ff`) count at 25 fps until the source's real
 * rate is known (resolveClip). Returns the problems, or the value to store (null: no clip asked).
 */
export function checkClip(input: { startTimecode?: string; endTimecode?: string }): { problems: Problem[]; clip: StoredClip | null } {
  const problems: Problem[] = [];
  const start = input.startTimecode === undefined ? 0 : parseTimecode(input.startTimecode);
  const end = input.endTimecode === undefined ? null : parseTimecode(input.endTimecode);
  if (start === null) problems.push(invalidProblem("clip[startTimecode]", TIMECODE));
  if (input.endTimecode !== undefined && end === null) problems.push(invalidProblem("clip[endTimecode]", TIMECODE));
  if (start !== null && end !== null && end <= start) problems.push(invalidProblem("clip[endTimecode]", "This attribute must be later than startTimecode."));
  if (problems.length || start === null) return { problems, clip: null };
  if (start === 0 && end === null) return { problems, clip: null }; // the whole video
  return { problems, clip: { startS: start, endS: end, ...input } };
}

/**
 * The clip's window on a source of `durationS` at `fps`: timecodes re-read with the real frame rate,
 * the end capped at the source's. Throws MediaError when nothing of the source is left.
 */
export function resolveClip(clip: StoredClip, source: { durationS: number; frameRate: number }): { startS: number; endS: number } {
  const fps = source.frameRate > 0 ? source.frameRate : 25;
  const startS = clip.startTimecode !== undefined ? (parseTimecode(clip.startTimecode, fps) ?? clip.startS) : clip.startS;
  const asked = clip.endTimecode !== undefined ? (parseTimecode(clip.endTimecode, fps) ?? clip.endS) : clip.endS;
  const endS = Math.min(asked ?? source.durationS, source.durationS);
  if (startS >= source.durationS) {
    throw new MediaError(`The clip starts at ${startS} s, after the end of the video (${Math.round(source.durationS * 1000) / 1000} s).`);
  }
  if (endS <= startS) throw new MediaError(`The clip ends at ${endS} s, before it starts (${startS} s).`);
  return { startS, endS };
}

/** The stored clip of a video row, or null. */
export const clipOf = (row: { clip: string | null }): StoredClip | null => (row.clip ? (JSON.parse(row.clip) as StoredClip) : null);

/** Where a video's delivered timeline starts in its source file (0 without a clip). */
export const clipStartS = (row: { clip: string | null }): number => clipOf(row)?.startS ?? 0;
