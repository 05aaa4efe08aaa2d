// Remembers in the database which media tool processes are running, so that when the appliance is
// killed hard (SIGKILL, OOM, power) the next start can kill the ffmpeg (and whisper-cli) it left
// behind before any job resumes: an orphaned encoder would otherwise keep writing into a folder a
// new attempt uses, an orphaned live writer would keep the stream's files busy, and an orphaned
// whisper-cli would hold cores and memory for a transcript nobody waits for. Linux's parent-death
// signal cannot be asked for through Bun.spawn, and ffmpeg ignores both SIGPIPE and its stdin closing.
import { basename } from "node:path";
import { eq } from "drizzle-orm";
import type { Db } from "../db/client";
import { mediaProcesses } from "../db/schema";
import { randomBase62 } from "../ids";
import type { Logger } from "../log";
import { cmdlineOf, exeOf, procStat, resolvedBinary, selfIdentity, stillRunning, type ProcIdentity } from "./procfs";
import type { ChildTracker } from "./spawn";

const untracked: ChildTracker = { started: () => () => {} };

/** A tracker that records each child with this process as its owner; a no-op without /proc. */
export function childRecords(db: Db, log: Logger): ChildTracker {
  const self = selfIdentity();
  if (!self) return untracked;
  const exes = new Map<string, string>();
  return {
    started(pid, binary, tool) {
      const stat = procStat(pid);
      if (!stat) return () => {};
      let exe = exes.get(binary);
      if (!exe) exes.set(binary, (exe = resolvedBinary(binary)));
      const id = randomBase62(22);
      db.insert(mediaProcesses).values({
        id, pid, startTicks: stat.startTicks, bootId: self.bootId, tool, exe,
        ownerPid: self.pid, ownerStartTicks: self.startTicks, startedAt: Date.now(),
      }).run();
      return () => {
        try {
          db.delete(mediaProcesses).where(eq(mediaProcesses.id, id)).run();
        } catch (err) {
          // The database closed under a child killed at shutdown: the next start drops the row.
          log.debug("media process record not removed", { pid, error: String(err) });
        }
      };
    },
  };
}

// The recorded binary, or one named like the tool: a configured wrapper (a script that execs
// ffmpeg, `nice`) is what was spawned, but the process runs the real binary after its exec. A
// script that does not exec runs as its interpreter, which the kernel hands the script's path
// (argv[1], or argv[2] after a shebang option).
function sameBinary(pid: number, exe: string | null, recorded: string, tool: string): boolean {
  if (exe && (exe === recorded || basename(exe).startsWith(tool))) return true;
  return (cmdlineOf(pid) ?? []).slice(1, 3).some((arg) => arg.includes("/") && resolvedBinary(arg) === recorded);
}

/**
 * Kills the media processes recorded by appliance processes that no longer run, when the pid still
 * names that very process (same boot, start time and binary), and waits until they are gone.
 * Records of a process that still runs (another appliance on this data directory) are left alone.
 */
export async function reapOrphans(db: Db, log: Logger, waitMs = 10_000): Promise<number> {
  const dying: ProcIdentity[] = [];
  for (const r of db.select().from(mediaProcesses).all()) {
    if (stillRunning({ pid: r.ownerPid, startTicks: r.ownerStartTicks, bootId: r.bootId })) continue;
    const child = { pid: r.pid, startTicks: r.startTicks, bootId: r.bootId };
    const exe = exeOf(r.pid);
    if (stillRunning(child) && sameBinary(r.pid, exe, r.exe, r.tool)) {
      try {
        process.kill(r.pid, "SIGKILL");
        dying.push(child);
        log.warn("killed a media process left running by a stopped appliance", { pid: r.pid, exe, ownerPid: r.ownerPid });
      } catch (err) {
        log.warn("could not kill a media process left running by a stopped appliance", { pid: r.pid, error: String(err) });
      }
    }
    db.delete(mediaProcesses).where(eq(mediaProcesses.id, r.id)).run();
  }
  // SIGKILL lands at once, but a process blocked in the kernel (a disk write) exits a moment later.
  const deadline = Date.now() + waitMs;
  while (dying.some(stillRunning) && Date.now() < deadline) await Bun.sleep(10);
  for (const d of dying.filter(stillRunning)) log.error("a killed media process is still running", { pid: d.pid });
  return dying.length;
}
