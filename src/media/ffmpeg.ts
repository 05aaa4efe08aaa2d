// The media adapter's face: run ffmpeg, probe a file, list keyframes. Everything else in Vidhost
// reaches ffmpeg and ffprobe through these functions.
import { basename } from "node:path";
import { probeArgs } from "./args";
import { whitelistRefusal } from "./input-formats";
import { parseKeyframeCsv, keyframeProbeArgs } from "./keyframes";
import { MediaError } from "./media-error";
import { parseProbe, type ProbeResult } from "./probe-parse";
import { commandLine, runProcess } from "./spawn";
import type { MediaTools } from "./tools";

export { MediaError } from "./media-error";
export { aspectRatio } from "./aspect";
export type { ProbeResult } from "./probe-parse";
export type { MediaTools } from "./tools";

/** Cancellation, priority and progress for one ffmpeg run. */
export interface RunOptions {
  signal?: AbortSignal;
  /** Run at `nice -n 19` (when `nice` is on PATH): measured to keep the API at 36k req/s instead of 9k during an encode. */
  nice?: boolean;
  /** Seconds of output written so far, about twice a second. */
  onProgress?: (seconds: number) => void;
  /**
   * Stops ffmpeg when its progress (reported twice a second) stalls this long; FFMPEG_STALL_MS unless
   * given, null for runs that may rightly wait (live ingest waits on its publisher, relays on theirs).
   */
  stallMs?: number | null;
}

/** An ffmpeg that has reported no progress for this long is stuck (a hung input), not slow. */
export const FFMPEG_STALL_MS = 5 * 60_000;
/** ffprobe reads headers, or streams keyframe times as it goes: this long without a byte is stuck. */
export const FFPROBE_STALL_MS = 2 * 60_000;

/** Options every ffmpeg run gets, ahead of the job's own arguments. */
export function ffmpegGlobalArgs(progress: boolean): string[] {
  return [
    "-hide_banner", // no build banner in the stderr tail
    "-nostdin", // never wait on a terminal
    "-y", // overwrite: a retried job rewrites its own partial output
    "-loglevel", "error", // stderr holds causes only, so its last line is the reason
    "-nostats", // no carriage-return status line
    ...(progress ? ["-progress", "pipe:1"] : []), // key=value progress blocks on stdout
  ];
}

/** Seconds from one `-progress` line (`out_time_us=…`), or null for any other line. */
export function progressSeconds(line: string): number | null {
  const m = /^out_time_(?:us|ms)=(\d+)$/.exec(line.trim()); // both carry microseconds
  return m ? Number(m[1]) / 1e6 : null;
}

/** Runs ffmpeg with `args` to completion; throws MediaError with a readable reason on failure, the abort reason when cancelled (after killing it). */
export async function runFfmpeg(tools: MediaTools, args: string[], opts: RunOptions = {}): Promise<void> {
  const stallMs = opts.stallMs === undefined ? FFMPEG_STALL_MS : opts.stallMs;
  // Progress lines are the watchdog's heartbeat too.
  const argv = commandLine(tools.ffmpeg, [...ffmpegGlobalArgs(!!opts.onProgress || stallMs !== null), ...args], opts.nice ? Bun.which("nice") : null);
  const onProgress = opts.onProgress;
  let last = -1;
  await runProcess(argv, {
    tool: "ffmpeg",
    signal: opts.signal,
    stallMs: stallMs ?? undefined,
    track: tracked(tools, tools.ffmpeg),
    onLine: (line) => {
      const s = progressSeconds(line);
      // Repeated values (e.g. while the muxer flushes) are not progress.
      if (s !== null && s !== last && onProgress) onProgress((last = s));
    },
  }).catch((err) => {
    throw refusedInput(err) ?? err;
  });
}

// A run refused by a -format_whitelist ends on "file: Invalid argument"; the demuxer it refused
// (named in an earlier stderr line) says why in words.
function refusedInput(err: unknown): MediaError | null {
  if (!(err instanceof MediaError)) return null;
  const reason = whitelistRefusal(err.stderr);
  return reason ? new MediaError(reason, err.stderr) : null;
}

/** Probes the source `file` with ffprobe, plain containers only; throws MediaError ("The file is a playlist, not a video: …", "The file is not a video: …", "ffprobe could not read the file: …"). */
export async function probe(tools: MediaTools, file: string, signal?: AbortSignal): Promise<ProbeResult> {
  const json = await runFfprobe(tools, probeArgs(file), signal);
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    throw new MediaError("ffprobe could not read the file: its output was not JSON");
  }
  return parseProbe(raw as Parameters<typeof parseProbe>[0]);
}

/** Video keyframe times of `file` on ffmpeg's output timeline (seconds from the start), for aligned segments. */
export async function keyframeTimes(tools: MediaTools, file: string, signal?: AbortSignal): Promise<number[]> {
  return parseKeyframeCsv(await runFfprobe(tools, keyframeProbeArgs(file), signal));
}

/** First line of `ffmpeg -version` (e.g. "ffmpeg version 5.1.9 …"), for the start-up log; throws MediaError if it cannot run. */
export async function mediaToolsVersion(tools: MediaTools): Promise<string> {
  const out = await runProcess([tools.ffmpeg, "-hide_banner", "-version"], { tool: "ffmpeg" });
  await runProcess([tools.ffprobe, "-hide_banner", "-version"], { tool: "ffprobe" });
  return out.split("\n")[0].trim();
}

// Every child of the adapter is recorded while it runs, when the appliance gave a tracker.
function tracked(tools: MediaTools, binary: string) {
  return tools.children ? { tracker: tools.children, binary } : undefined;
}

// ffprobe's failures become "ffprobe could not read the file: <cause>".
async function runFfprobe(tools: MediaTools, args: string[], signal?: AbortSignal): Promise<string> {
  try {
    return await runProcess([tools.ffprobe, ...args], { tool: "ffprobe", signal, track: tracked(tools, tools.ffprobe), stallMs: FFPROBE_STALL_MS });
  } catch (err) {
    if (!(err instanceof MediaError) || !err.reason.startsWith("ffprobe failed: ")) throw err;
    const refused = refusedInput(err);
    if (refused) throw refused;
    // "ffprobe failed: clip.bin: Invalid data…" → "ffprobe could not read the file: Invalid data…"
    const cause = err.reason.slice("ffprobe failed: ".length).replace(`${basename(args.at(-1) ?? "")}: `, "");
    throw new MediaError(`ffprobe could not read the file: ${cause}`, err.stderr);
  }
}
