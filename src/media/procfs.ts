// Reads Linux's /proc to tell one process from another that later got the same pid. Elsewhere
// (no /proc) every function answers null, and orphan tracking is off.
import { readFileSync, readlinkSync, realpathSync } from "node:fs";

/** A process as /proc names it: pid plus the boot and start time that make it unique. */
export interface ProcIdentity {
  pid: number;
  startTicks: number;
  bootId: string;
}

/** The kernel's id for this boot, read once (it cannot change while this process runs), or null without /proc. */
const BOOT_ID: string | null = (() => {
  try {
    return readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
  } catch {
    return null;
  }
})();

/** The kernel's id for this boot: a pid and start time are only comparable within one boot. */
export function bootId(): string | null {
  return BOOT_ID;
}

/** State (`R`, `S`, `Z`, …) and start time in clock ticks from /proc/<pid>/stat, or null when there is no such process. */
export function procStat(pid: number): { state: string; startTicks: number } | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return null;
  }
  // The command name (field 2) is in parentheses and may hold spaces or ')': fields resume after the last ')'.
  const rest = text.slice(text.lastIndexOf(")") + 2).split(" ");
  const startTicks = Number(rest[19]); // field 22 (starttime); rest[0] is field 3 (state)
  return Number.isFinite(startTicks) ? { state: rest[0], startTicks } : null;
}

/** This process's identity, or null without /proc. */
export function selfIdentity(): ProcIdentity | null {
  return identityOf(process.pid);
}

/** A live process's identity, or null when it is gone or /proc is missing. */
export function identityOf(pid: number): ProcIdentity | null {
  const boot = bootId();
  const stat = procStat(pid);
  return boot && stat ? { pid, startTicks: stat.startTicks, bootId: boot } : null;
}

/** True while `who` still runs (not exited, not a zombie awaiting its reaper). */
export function stillRunning(who: ProcIdentity): boolean {
  if (bootId() !== who.bootId) return false;
  const stat = procStat(who.pid);
  return !!stat && stat.state !== "Z" && stat.startTicks === who.startTicks;
}

/** The resolved path of a process's binary, or null when unreadable (gone, or another user's). */
export function exeOf(pid: number): string | null {
  try {
    return readlinkSync(`/proc/${pid}/exe`).replace(/ \(deleted\)$/, "");
  } catch {
    return null;
  }
}

/** A process's arguments (argv[0] first) from /proc/<pid>/cmdline, or null when unreadable. */
export function cmdlineOf(pid: number): string[] | null {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").slice(0, -1);
  } catch {
    return null;
  }
}

/** A binary's path (a bare name is looked up on PATH) with symlinks resolved, as /proc/<pid>/exe shows it. */
export function resolvedBinary(path: string): string {
  try {
    return realpathSync(path.includes("/") ? path : (Bun.which(path) ?? path));
  } catch {
    return path;
  }
}
