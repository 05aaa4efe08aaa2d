// The one error type the media adapter throws, so job handlers can tell "the tool failed on this
// file" (a failed rendition with a reason) from a bug.
import { basename } from "node:path";

/** ffmpeg or ffprobe failed; `reason` is one readable sentence fit for a status or a log line. */
export class MediaError extends Error {
  constructor(
    readonly reason: string,
    /** The tail of the tool's stderr, for logs only (it may hold server paths). */
    readonly stderr = "",
  ) {
    super(reason);
    this.name = "MediaError";
  }
}

/**
 * Whether a failure came from the machine rather than the file: a full disk, a quota, a failing
 * disk. The same file may well succeed later, once an operator has made room.
 */
export function isMachineFault(err: unknown): boolean {
  const text = err instanceof MediaError ? `${err.reason}\n${err.stderr}` : err instanceof Error ? `${err.message} ${(err as NodeJS.ErrnoException).code ?? ""}` : String(err);
  return /No space left on device|ENOSPC|Disk quota exceeded|EDQUOT|Input\/output error|\bEIO\b/.test(text);
}

// Lines ffmpeg prints after the real cause; they restate that something failed without saying what.
const GENERIC = [
  /^Conversion failed!?$/,
  /^Error initializing output stream/,
  /^Error while (opening|filtering|processing|decoding)/,
  /^Error opening output files?/,
  /^Exiting normally/,
];

/** The last line of stderr that names a cause, with `[lib @ 0x…]` prefixes dropped and paths shortened to file names. */
export function stderrReason(stderr: string, args: readonly string[] = []): string {
  const lines = stderr
    .split(/\r?\n/)
    .map((l) => l.replace(/^\[[^\]]*@ 0x[0-9a-f]+\]\s*/i, "").trim())
    .filter((l) => l.length > 0);
  const meaningful = lines.filter((l) => !GENERIC.some((g) => g.test(l)));
  const line = meaningful.at(-1) ?? lines.at(-1) ?? "";
  return scrubPaths(line, args);
}

// Reasons can reach API users: replace every path-like argument by its file name so server
// directories never leak, longest first so nested paths are not half-replaced.
function scrubPaths(line: string, args: readonly string[]): string {
  const paths = [...new Set(args.filter((a) => a.includes("/") && a.length > 1))].sort((a, b) => b.length - a.length);
  let out = line;
  for (const p of paths) out = out.split(p).join(basename(p));
  // Paths ffmpeg derived itself (seg_00003.ts from a seg_%05d.ts pattern) are not among the arguments.
  return out.replace(/(?<![\w.])(?:\/[\w.%+-]+)+\/([\w.%+-]+)/g, "$1");
}
