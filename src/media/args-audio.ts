// Pure builder of the ffmpeg arguments that turn a video's sound into what speech-to-text engines
// (Whisper and its servers) read best.
import { secs } from "./args-ladder";
import { SOURCE_DEMUXERS, userFileInput } from "./input-formats";

/**
 * ffmpeg arguments extracting the first audio track of `input` as 16 kHz mono 16-bit PCM WAV at
 * `output`; `startS` skips the start (a clipped video), `limitS` keeps only the next seconds (a
 * clip's length, or the sandbox's 30 s).
 */
export function speechAudioArgs(input: string, output: string, opts: { startS?: number; limitS?: number } = {}): string[] {
  return [
    ...(opts.startS ? ["-ss", secs(opts.startS)] : []), // input seek: where a clipped video starts
    ...userFileInput(SOURCE_DEMUXERS), // the user's source: plain containers only
    "-i", input,
    "-map", "0:a:0", // the first audio track; fails (no stream) when there is none
    "-vn", // no picture: nothing to decode but the sound
    "-map_metadata", "-1", // no source tags in a file sent to another server
    ...(opts.limitS !== undefined ? ["-t", secs(opts.limitS)] : []), // the part of the video that is delivered
    "-ac", "1", // mono: Whisper listens to one channel
    "-ar", "16000", // 16 kHz: Whisper's own rate, so no engine resamples
    "-c:a", "pcm_s16le", // plain 16-bit PCM, readable by every engine
    "-f", "wav",
    output,
  ];
}
