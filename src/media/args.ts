// Pure builders of ffmpeg/ffprobe argument arrays (never a shell string). The ladder encode lives in
// args-ladder.ts and keyframe probing in keyframes.ts; both are re-exported here.
import { basename, dirname, join } from "node:path";
import { secs } from "./args-ladder";
import { SOURCE_DEMUXERS, userFileInput } from "./input-formats";

export { hlsLadderArgs, type LadderOptions, type WatermarkInput, type X264Preset } from "./args-ladder";
export { watermarkInput, type WatermarkPlacement } from "./args-watermark";
export { keyframeProbeArgs } from "./keyframes";

/** ffprobe arguments for probe() of a user's source: every stream and the container, as JSON. */
export function probeArgs(file: string): string[] {
  return [
    "-v", "error", // only real problems on stderr, so the reason is the cause
    ...userFileInput(SOURCE_DEMUXERS), // a playlist is refused, not followed
    "-print_format", "json", // machine-readable, parsed by parseProbe
    "-show_format", // duration, size, container name
    "-show_streams", // codecs, sizes, rates, rotation side data
    file,
  ];
}

/**
 * ffmpeg arguments copying the source's video and first audio track, untouched, into HLS at
 * `renditionDir/index.m3u8` + `seg_00000.ts`… (e.g. `hls/1080p`, the ladder's layout): the fast
 * first playable rendition for sources isRemuxable() accepts. Segments cut at the source's own
 * keyframes. `hasAudio` must be right: the muxer's stream map names the audio track.
 */
export function remuxHlsArgs(input: string, renditionDir: string, opts: { segmentS: number; hasAudio: boolean; limitS?: number }): string[] {
  // The HLS muxer creates a rendition's directory only when its name comes from %v.
  const [outDir, name] = [dirname(renditionDir), basename(renditionDir)];
  return [
    ...userFileInput(SOURCE_DEMUXERS), // the user's source: plain containers only
    "-i", input,
    "-map", "0:v:0", // the video stream
    ...(opts.hasAudio ? ["-map", "0:a:0"] : []), // the first audio track
    "-map_metadata", "-1", "-map_chapters", "-1", // drop source tags (phone GPS, device names)
    ...(opts.limitS !== undefined ? ["-t", secs(opts.limitS)] : []), // sandbox cap (ends on a packet, no re-encode)
    "-c", "copy", // no decode, no encode: well under a second
    "-f", "hls",
    "-hls_time", secs(opts.segmentS), // cut at the first keyframe past each multiple
    "-hls_playlist_type", "vod", // keeps every segment and ends the playlist
    "-hls_flags", "independent_segments", // the muxer cuts only at keyframes
    "-hls_segment_filename", join(outDir, "%v", "seg_%05d.ts"),
    "-var_stream_map", opts.hasAudio ? `v:0,a:0,name:${name}` : `v:0,name:${name}`, // %v = name; the muxer creates the directory
    join(outDir, "%v", "index.m3u8"),
  ];
}

/** ffmpeg arguments stream-copying an HLS rendition Vidhost wrote (so HLS is allowed) into one MP4 (0.15 s, where encoding costs a third of the job). */
export function mp4FromHlsArgs(playlist: string, output: string): string[] {
  return [
    "-i", playlist,
    "-map", "0:v:0", // the rendition's video
    "-map", "0:a:0?", // and its audio, when it has some
    "-c", "copy", // the segments are already H.264/AAC
    "-bsf:a", "aac_adtstoasc", // MPEG-TS carries ADTS AAC; MP4 wants the raw form with a config record
    "-movflags", "+faststart", // index at the front: playback starts before the download ends
    output,
  ];
}

/** ffmpeg arguments writing the frame at `atS` of a user's source as one JPEG, optionally scaled to `width` (height follows, even). */
export function thumbnailArgs(input: string, atS: number, output: string, opts: { width?: number } = {}): string[] {
  return [
    "-ss", secs(atS), // input seek: fast, and exact because the frame is decoded
    ...userFileInput(SOURCE_DEMUXERS), // plain containers only
    "-i", input,
    "-map", "0:v:0", // the video, not cover art or other tracks
    "-frames:v", "1", // one picture
    ...(opts.width ? ["-vf", `scale=${opts.width}:-2`] : []), // keep the aspect ratio
    "-q:v", "3", // JPEG quality on ffmpeg's 2 (best) to 31 scale: sharp at a small size
    "-f", "image2", // a single image file, whatever the extension
    "-update", "1", // one file, not a numbered sequence
    output,
  ];
}

/**
 * When to take a thumbnail: a requested time inside the video (§8.3: out of range → 0), else
 * 10 % in, but at least 1 s (past fade-ins and black first frames) when the video is that long.
 */
export function thumbnailTime(durationS: number, requestedS?: number): number {
  const lastFrame = Math.max(0, durationS - 0.1); // seeking to the very end can find no frame
  if (requestedS !== undefined) return requestedS >= 0 && requestedS <= lastFrame ? requestedS : 0;
  return Math.min(Math.max(durationS * 0.1, Math.min(1, durationS / 2)), lastFrame);
}

/** Where each rendition lands under outDir: one directory per quality name. */
export function renditionPaths(outDir: string, name: string): { dir: string; playlist: string; firstSegment: string } {
  const dir = join(outDir, name);
  return { dir, playlist: join(dir, "index.m3u8"), firstSegment: join(dir, "seg_00000.ts") };
}
