// One appliance process per data directory. A second one would clear the first's temp files (failing
// its uploads), settle its live broadcasts as if it had died and run migrations under it. Bun has
// no flock, so the lock is a file created exclusively that names its holder as the job leases and
// media process records do (pid, boot id, start ticks); a holder that no longer runs leaves a stale
// lock, which the next start takes over.
import { linkSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { randomBase62 } from "../ids";
import { bootId, selfIdentity, stillRunning } from "../media/procfs";

export const LOCK_FILE = "vidhost.lock";

/** What the lock file holds; bootId and startTicks are null where /proc is missing. */
export interface LockHolder {
  pid: number;
  bootId: string | null;
  startTicks: number | null;
}

/** Thrown when another running process holds the data directory. */
export class DataDirLockedError extends Error {
  constructor(readonly dataDir: string, readonly pid: number) {
    super(`the data directory ${dataDir} is in use by another vidhost process (pid ${pid}); stop it first or use another --data-dir`);
  }
}

/** A held lock; release() removes the file if it is still this holder's. */
export interface DataLock {
  readonly path: string;
  release(): void;
}

/** True while the process a lock names runs; pid-only (kill 0) when either side lacks /proc's identity. */
export function holderRunning(h: LockHolder): boolean {
  if (h.bootId && h.startTicks !== null && bootId()) return stillRunning({ pid: h.pid, bootId: h.bootId, startTicks: h.startTicks });
  try {
    process.kill(h.pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM"; // exists, but another user's
  }
}

function readHolder(file: string): LockHolder | null {
  try {
    const v = JSON.parse(readFileSync(file, "utf8")) as Partial<LockHolder>;
    return Number.isInteger(v.pid) && (v.pid as number) > 0
      ? { pid: v.pid as number, bootId: typeof v.bootId === "string" ? v.bootId : null, startTicks: typeof v.startTicks === "number" ? v.startTicks : null }
      : null;
  } catch {
    return null; // gone, or unreadable: it names no running process
  }
}

/**
 * Takes `<dataDir>/vidhost.lock` or throws DataDirLockedError naming the running holder. The file is
 * written whole under a private name and hard-linked into place, which fails if the name exists, so
 * a reader never sees a half-written lock. A stale lock is first renamed aside (atomic: of two
 * starters only one gets it) and checked again there, so a lock just taken by another is never lost.
 */
export function lockDataDir(dataDir: string): DataLock {
  const path = join(dataDir, LOCK_FILE);
  const self = selfIdentity();
  const mine: LockHolder = { pid: process.pid, bootId: self?.bootId ?? null, startTicks: self?.startTicks ?? null };
  // The id tells this lock from a later one by the same process (two appliances in one test process).
  const text = JSON.stringify({ ...mine, id: randomBase62(16) }) + "\n";
  const staging = `${path}.new-${randomBase62(8)}`;
  writeFileSync(staging, text, { mode: 0o644 });
  try {
    for (let tries = 0; tries < 5; tries++) {
      try {
        linkSync(staging, path);
        return { path, release: () => releaseIf(path, text) };
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      }
      const holder = readHolder(path);
      if (holder && holderRunning(holder)) throw new DataDirLockedError(dataDir, holder.pid);
      const aside = `${path}.stale-${randomBase62(8)}`;
      try {
        renameSync(path, aside);
      } catch {
        continue; // another starter moved it first
      }
      const moved = readHolder(aside);
      if (moved && holderRunning(moved)) {
        // Another starter took the lock between our read and the rename: put theirs back.
        try {
          linkSync(aside, path);
        } catch {}
        rmSync(aside, { force: true });
        throw new DataDirLockedError(dataDir, moved.pid);
      }
      rmSync(aside, { force: true });
    }
    throw new Error(`could not take the lock ${path}: it keeps changing`);
  } finally {
    rmSync(staging, { force: true });
  }
}

// Only a file this holder wrote is removed: a lock taken over after this one was judged stale stays.
function releaseIf(path: string, text: string): void {
  try {
    if (readFileSync(path, "utf8") === text) rmSync(path, { force: true });
  } catch {}
}
