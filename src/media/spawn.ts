// Runs one media tool as a child process (argument array, never a shell), with cancellation and a
// bounded stderr buffer so a chatty multi-hour encode cannot grow memory.
import { MediaError, stderrReason } from "./media-error";

/** Bytes of stderr kept: enough for the last few error lines. */
export const STDERR_TAIL_BYTES = 4096;

/** How runProcess names, cancels and streams one child. */
export interface SpawnOptions {
  /** Names the tool in error reasons ("ffmpeg failed: …"). */
  tool: string;
  signal?: AbortSignal;
  /** Called with each complete stdout line, for progress; without it stdout is collected and returned. */
  onLine?: (line: string) => void;
  /** Records the child while it runs (see child-records.ts); `binary` is the tool, argv[0] may be `nice`. */
  track?: { tracker: ChildTracker; binary: string };
  /**
   * Kills the child when it writes nothing (stdout or stderr) for this long: a tool stuck on a
   * stalled read (a hung disk or network mount) would otherwise hold its job, and every job queued
   * behind it, for ever.
   */
  stallMs?: number;
}

/** Told of each child as it starts; the returned function is called once it has exited or been killed. */
export interface ChildTracker {
  started(pid: number, binary: string, tool: string): () => void;
}

/** The argv actually executed: `nice -n 19` first when asked and available, so encodes yield the CPU to the API. */
export function commandLine(binary: string, args: readonly string[], nice: string | null): string[] {
  return nice ? [nice, "-n", "19", binary, ...args] : [binary, ...args];
}

/** Runs argv to completion; resolves with stdout (empty when streamed to onLine), throws MediaError on failure or the abort reason when cancelled. */
export async function runProcess(argv: string[], opts: SpawnOptions): Promise<string> {
  const { signal, tool } = opts;
  signal?.throwIfAborted();
  let proc: ReturnType<typeof spawnPiped>;
  try {
    proc = spawnPiped(argv);
  } catch (err) {
    throw new MediaError(`${tool} could not be started: ${err instanceof Error ? err.message : String(err)}`);
  }
  let untrack: (() => void) | undefined;
  try {
    untrack = opts.track?.tracker.started(proc.pid, opts.track.binary, tool);
  } catch (err) {
    proc.kill("SIGKILL"); // an unrecorded child could outlive a crash unnoticed
    throw err;
  }
  // SIGKILL: the caller discards partial output anyway, and a stalled ffmpeg may ignore SIGTERM.
  const kill = () => proc.kill("SIGKILL");
  signal?.addEventListener("abort", kill, { once: true });
  let stalled = false;
  let watchdog: ReturnType<typeof setTimeout> | undefined;
  const alive = () => {
    if (!opts.stallMs) return;
    clearTimeout(watchdog);
    watchdog = setTimeout(() => {
      stalled = true;
      kill();
    }, opts.stallMs);
  };
  alive();
  try {
    const [stdout, stderr, code] = await Promise.all([readStdout(proc.stdout, opts.onLine, alive), readTail(proc.stderr, alive), proc.exited]);
    if (signal?.aborted) throw signal.reason;
    if (stalled) throw new MediaError(`${tool} made no progress for ${opts.stallMs! / 1000} s and was stopped`, stderr);
    if (code !== 0) {
      const why = stderrReason(stderr, argv) || (proc.signalCode ? `killed by ${proc.signalCode}` : `exit code ${code}`);
      throw new MediaError(`${tool} failed: ${why}`, stderr);
    }
    return stdout;
  } finally {
    clearTimeout(watchdog);
    signal?.removeEventListener("abort", kill);
    // A throwing onLine ends the wait early: never leave the child running behind us.
    if (proc.exitCode === null && proc.signalCode === null) {
      kill();
      await proc.exited;
    }
    untrack?.();
  }
}

function spawnPiped(argv: string[]) {
  return Bun.spawn(argv, { stdin: "ignore", stdout: "pipe", stderr: "pipe" });
}

async function readStdout(stream: ReadableStream<Uint8Array>, onLine: ((line: string) => void) | undefined, alive: () => void): Promise<string> {
  const decoder = new TextDecoder();
  if (!onLine) {
    let out = "";
    for await (const chunk of stream) {
      alive();
      out += decoder.decode(chunk, { stream: true });
    }
    return out + decoder.decode();
  }
  let pending = "";
  for await (const chunk of stream) {
    alive();
    pending += decoder.decode(chunk, { stream: true });
    const lines = pending.split("\n");
    pending = lines.pop() ?? "";
    for (const line of lines) onLine(line.trimEnd());
  }
  if (pending) onLine(pending.trimEnd());
  return "";
}

// Keeps only the last STDERR_TAIL_BYTES, trimming at chunk granularity then exactly at the end.
async function readTail(stream: ReadableStream<Uint8Array>, alive: () => void): Promise<string> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of stream) {
    alive();
    chunks.push(chunk);
    size += chunk.byteLength;
    while (chunks.length > 1 && size - chunks[0].byteLength >= STDERR_TAIL_BYTES) size -= chunks.shift()!.byteLength;
  }
  const all = new Uint8Array(size);
  chunks.reduce((offset, c) => (all.set(c, offset), offset + c.byteLength), 0);
  return new TextDecoder().decode(all.subarray(Math.max(0, all.byteLength - STDERR_TAIL_BYTES)));
}
