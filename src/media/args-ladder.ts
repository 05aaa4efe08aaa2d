// The whole HLS ladder from one ffmpeg process: the source is decoded once and split, which
// measured 1.3–1.4× faster than one process per rendition on two cores.
import { join } from "node:path";
import { IMAGE_DEMUXERS, SOURCE_DEMUXERS, userFileInput } from "./input-formats";
import { hlsCutTimes } from "./keyframes";
import type { Rendition } from "./ladder";

/** x264 speed/size trade-offs; production uses veryfast, tests ultrafast. */
export type X264Preset = "ultrafast" | "superfast" | "veryfast" | "faster" | "fast" | "medium";

/** An image burned into every rendition before scaling, so it sits at the same place on every rung. */
export interface WatermarkInput {
  /** PNG or JPEG, read as ffmpeg's second input. */
  file: string;
  /** Filters for the image alone before overlaying (size, opacity), e.g. "scale=192:-1,format=rgba,colorchannelmixer=aa=0.5". */
  prepare?: string;
  /** The overlay filter with its position, e.g. "overlay=W-w-10:10" (W/H: video size, w/h: image size). */
  filter: string;
}

/** What the ladder encode needs to know beyond the renditions. */
export interface LadderOptions {
  hasAudio: boolean;
  /** The source's frame rate (0 when unknown): sizes the GOP and caps output at 60 fps. */
  frameRate: number;
  segmentS: number;
  /** Sandbox cap: encode at most this many seconds. */
  limitS?: number;
  /** Trim to [startS, endS) of the source. */
  clip?: { startS: number; endS: number };
  /** Burned in in order, each over the last: the customer's watermark, then the sandbox's. */
  watermarks?: WatermarkInput[];
  /** Keyframe times of a remuxed source rendition (keyframeTimes()): segments then cut where its do. */
  keyframeTimes?: number[];
  /** Default veryfast: on two cores about 2–3× medium's speed for ~10–15 % more bits at equal quality, and rate control caps the bits anyway. */
  preset?: X264Preset;
}

/** Seconds as ffmpeg reads them, to the millisecond. */
export const secs = (n: number): string => String(Math.round(n * 1000) / 1000);

/** Output frame rate: the source's, capped at api.video's 60, 30 when the source does not say. */
export const outputFps = (frameRate: number): number => (frameRate > 0 ? Math.min(frameRate, 60) : 30);

/** ffmpeg arguments encoding every rendition into `outDir/<name>/index.m3u8` + `seg_00000.ts`… in one pass. */
export function hlsLadderArgs(input: string, renditions: Rendition[], outDir: string, opts: LadderOptions): string[] {
  if (renditions.length === 0) throw new Error("hlsLadderArgs needs at least one rendition");
  const fps = outputFps(opts.frameRate);
  const args: string[] = [];
  // Input seek: jumps to the keyframe before startS, then decodes up to it, so the cut is frame-exact.
  if (opts.clip) args.push("-ss", secs(opts.clip.startS));
  args.push(...userFileInput(SOURCE_DEMUXERS), "-i", input); // the user's source: plain containers only
  // Inputs 1, 2, …: the images, PNG or JPEG (the customer's uploads, and the sandbox's own PNG).
  for (const w of opts.watermarks ?? []) args.push(...userFileInput(IMAGE_DEMUXERS), "-i", w.file);
  args.push("-filter_complex", ladderGraph(renditions, opts));
  renditions.forEach((_, i) => {
    args.push("-map", `[v${i}]`); // this rung's scaled video
    if (opts.hasAudio) args.push("-map", "0:a:0"); // its own AAC copy of the first audio track
  });
  args.push("-map_metadata", "-1", "-map_chapters", "-1"); // drop source tags (phone GPS, device names)
  const duration = Math.min(opts.clip ? opts.clip.endS - opts.clip.startS : Infinity, opts.limitS ?? Infinity);
  // An output duration rather than -to: after an input -ss, -t cannot be misread as a source timecode.
  if (Number.isFinite(duration)) args.push("-t", secs(duration));
  args.push(
    "-c:v", "libx264", // H.264: plays everywhere HLS does
    "-preset", opts.preset ?? "veryfast", // see LadderOptions.preset
    "-pix_fmt", "yuv420p", // 8-bit 4:2:0: the only format every hardware decoder takes
  );
  renditions.forEach((r, i) => {
    args.push(
      `-profile:v:${i}`, r.name === "240p" || r.name === "360p" ? "main" : "high", // main on the low rungs old devices pick
      `-b:v:${i}`, `${r.videoKbps}k`, // average rate: the ladder's spacing
      `-maxrate:v:${i}`, `${r.maxrateKbps}k`, // peak, which BANDWIDTH in the master playlist promises
      `-bufsize:v:${i}`, `${r.bufsizeKbps}k`, // VBV window the peak is measured over
    );
  });
  args.push(...keyframeArgs(opts, fps), "-sc_threshold", "0"); // no scene-cut keyframes: every rung cuts at the same frames
  if (opts.hasAudio) {
    args.push("-c:a", "aac", "-ac", "2"); // stereo AAC: HLS's baseline audio
    renditions.forEach((r, i) => args.push(`-b:a:${i}`, `${r.audioKbps}k`));
  }
  const streamMap = renditions.map((r, i) => (opts.hasAudio ? `v:${i},a:${i},name:${r.name}` : `v:${i},name:${r.name}`));
  args.push(
    "-max_muxing_queue_size", "1024", // n video + n audio streams start at different times; don't abort while they line up
    "-f", "hls",
    "-hls_time", secs(opts.segmentS), // target segment length; cuts fall on the forced keyframes
    "-hls_playlist_type", "vod", // keeps every segment and ends the playlist with ENDLIST
    "-hls_flags", "independent_segments", // each segment starts with a keyframe: safe to switch rungs there
    "-hls_segment_filename", join(outDir, "%v", "seg_%05d.ts"),
    "-var_stream_map", streamMap.join(" "), // one playlist per rung; name: makes %v the rung's name
    join(outDir, "%v", "index.m3u8"),
  );
  return args;
}

// Overlays (once each, at source size, chained), fps cap, split, then one scale per rung.
function ladderGraph(renditions: Rendition[], opts: LadderOptions): string {
  const parts: string[] = [];
  const marks = opts.watermarks ?? [];
  marks.forEach((w, i) => parts.push(`[${i + 1}:v]${w.prepare || "null"}[wm${i}]`));
  let head = "[0:v]";
  marks.forEach((w, i) => {
    // Every overlay but the last writes a named pad the next one reads.
    head = i < marks.length - 1 ? `${head}[wm${i}]${w.filter}[o${i}];[o${i}]` : `${head}[wm${i}]${w.filter},`;
  });
  if (opts.frameRate > 60) head += "fps=60,";
  parts.push(`${head}split=${renditions.length}${renditions.map((_, i) => `[s${i}]`).join("")}`);
  // setsar=1: square pixels, so the size we computed from the display size is what players show.
  renditions.forEach((r, i) => parts.push(`[s${i}]scale=${r.width}:${r.height},setsar=1[v${i}]`));
  return parts.join(";");
}

// Keyframes on a clock, not a frame count, so variable-frame-rate phone clips still get even segments.
function keyframeArgs(opts: LadderOptions, fps: number): string[] {
  if (opts.keyframeTimes && opts.keyframeTimes.length > 0) {
    const cuts = hlsCutTimes(opts.keyframeTimes, opts.segmentS);
    // Just under each cut: the encoder's timestamps are rounded to its frame clock and may land a hair early.
    const times = cuts.slice(1).map((t) => Math.max(0, Math.floor((t - 0.4 / fps) * 1000) / 1000));
    const maxGap = cuts.reduce((m, t, i) => (i === 0 ? m : Math.max(m, t - cuts[i - 1])), opts.segmentS);
    return [
      "-force_key_frames", times.length > 0 ? times.join(",") : "0", // exactly where the remux cuts
      "-g", String(Math.ceil((maxGap + 1) * fps)), // no keyframe of x264's own between them
    ];
  }
  return [
    "-force_key_frames", `expr:gte(t,n_forced*${secs(opts.segmentS)})`, // one keyframe every segmentS seconds
    "-g", String(Math.ceil(opts.segmentS * fps * 2)), // a ceiling x264 never reaches before the forced one
  ];
}
