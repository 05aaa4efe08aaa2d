// Keyframe alignment between a remuxed source rendition and the encoded ones: both must cut
// their HLS segments at the same instants so players can switch rungs at any segment boundary.
import { SOURCE_DEMUXERS, userFileInput } from "./input-formats";

/**
 * ffprobe arguments listing the first video stream's packet times and flags, plus the container
 * start time. Reading packets only demuxes (no decoding), which is far faster than
 * `-skip_frame nokey -show_frames` and reports the same key flag the HLS muxer cuts on.
 */
export function keyframeProbeArgs(file: string): string[] {
  return [
    "-v", "error", // errors only: stdout must stay pure CSV
    ...userFileInput(SOURCE_DEMUXERS), // the user's source: plain containers only
    "-select_streams", "v:0", // the stream the HLS muxer cuts on
    "-show_entries", "packet=pts_time,flags:format=start_time", // per-packet time and K flag; offset to subtract
    "-of", "csv=p=0", // bare values, one packet per line
    file,
  ];
}

/**
 * Keyframe times from keyframeProbeArgs' output, sorted and made relative to the container start
 * (ffmpeg shifts every output to start there, so these are output-timeline times).
 */
export function parseKeyframeCsv(csv: string): number[] {
  let start = 0;
  const times: number[] = [];
  for (const line of csv.split(/\r?\n/)) {
    const [time, flags] = line.trim().split(",");
    const t = Number(time);
    if (time === undefined || time === "" || !Number.isFinite(t)) continue;
    if (flags === undefined) start = t; // the lone format line
    else if (flags.startsWith("K")) times.push(t);
  }
  return times.map((t) => Math.round((t - start) * 1e6) / 1e6).sort((a, b) => a - b);
}

/**
 * The keyframes at which ffmpeg's HLS muxer will cut: the first keyframe at or past each
 * multiple of segmentS, counted from the first one (hlsenc compares `pts - start >= hls_time × n`
 * and advances n once per segment). Forcing only these in the encoded renditions reproduces the
 * remux's segments exactly while leaving x264 free between them.
 */
export function hlsCutTimes(keyframes: readonly number[], segmentS: number): number[] {
  if (keyframes.length === 0) return [];
  const start = keyframes[0];
  const cuts = [start];
  let n = 1;
  for (const t of keyframes.slice(1)) {
    // Whole microseconds, so float noise (5.999999…) cannot move a cut.
    if (Math.round((t - start) * 1e6) >= Math.round(segmentS * n * 1e6)) {
      cuts.push(t);
      n++;
    }
  }
  return cuts;
}
