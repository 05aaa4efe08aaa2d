// Helpers shared by the benchmarks: a server child process that announces itself with one JSON line,
// its resident memory, and the machine's load for the printed notes.
import { readFileSync } from "node:fs";

export interface Child<T> {
  proc: Bun.Subprocess<"ignore", "pipe", "inherit">;
  info: T;
}

/** Starts `bun <script> ...args` and resolves with the JSON object of its first stdout line. */
export async function startChild<T>(script: string, args: string[] = []): Promise<Child<T>> {
  const proc = Bun.spawn([process.execPath, script, ...args], { stdin: "ignore", stdout: "pipe", stderr: "inherit" });
  const reader = proc.stdout.getReader();
  const decoder = new TextDecoder();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`${script} exited (${await proc.exited}) before it was ready`);
    text += decoder.decode(value, { stream: true });
  }
  reader.releaseLock();
  return { proc, info: JSON.parse(text.slice(0, text.indexOf("\n"))) as T };
}

/** SIGTERM, then wait for the child to clean up and exit. */
export async function stopChild(child: Child<unknown> | undefined): Promise<void> {
  if (!child || child.proc.exitCode !== null) return;
  child.proc.kill("SIGTERM");
  await child.proc.exited;
}

/** A line of /proc/<pid>/status in bytes (VmRSS: resident now, VmHWM: peak since start); null once the process is gone. */
export function procMemory(pid: number, field: "VmRSS" | "VmHWM"): number | null {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/** CPU time (user + system, all threads) a process has used so far, in ms; null once it is gone. */
export function cpuMs(pid: number): number | null {
  try {
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return null;
  }
}
const CLOCK_TICKS = 100; // USER_HZ, 100 on every Linux this runs on

/** Samples a process's VmRSS every `everyMs` until stopped; reports the baseline (first sample) and the peak. */
export function sampleRss(pid: number, everyMs = 50) {
  const baseline = procMemory(pid, "VmRSS") ?? 0;
  let peak = baseline;
  let samples = 1;
  const timer = setInterval(() => {
    const rss = procMemory(pid, "VmRSS");
    if (rss === null) return;
    samples++;
    if (rss > peak) peak = rss;
  }, everyMs);
  return {
    /** The peak so far (e.g. before the final assembly starts). */
    peakSoFar: () => peak,
    stop() {
      clearInterval(timer);
      const rss = procMemory(pid, "VmRSS");
      if (rss !== null && rss > peak) peak = rss;
      return { baseline, peak, growth: peak - baseline, samples, hwm: procMemory(pid, "VmHWM") };
    },
  };
}

/** `uptime`'s load averages, for the printed notes (the machine is shared). */
export function loadAverage(): string {
  try {
    const [one, five, fifteen] = readFileSync("/proc/loadavg", "utf8").split(" ");
    return `load average ${one}, ${five}, ${fifteen}`;
  } catch {
    return "load average unknown";
  }
}

export const MiB = 1024 * 1024;
export const fmtMiB = (bytes: number) => `${(bytes / MiB).toFixed(1)} MiB`;
