import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { selfIdentity } from "../media/procfs";
import { DataDirLockedError, holderRunning, LOCK_FILE, lockDataDir } from "./data-lock";

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
function dir(): string {
  const d = mkdtempSync(join(tmpdir(), "vidhost-lock-"));
  dirs.push(d);
  return d;
}

/** A pid that ran and has exited (and been reaped). */
async function deadPid(): Promise<number> {
  const p = Bun.spawn(["true"]);
  await p.exited;
  return p.pid;
}

test("the lock names this process and refuses a second taker while held; release removes it", () => {
  const d = dir();
  const lock = lockDataDir(d);
  const held = JSON.parse(readFileSync(join(d, LOCK_FILE), "utf8"));
  expect(held.pid).toBe(process.pid);
  expect(held.startTicks).toBe(selfIdentity()?.startTicks ?? null);
  let err: unknown;
  try {
    lockDataDir(d);
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(DataDirLockedError);
  expect((err as Error).message).toBe(`the data directory ${d} is in use by another vidhost process (pid ${process.pid}); stop it first or use another --data-dir`);
  expect(existsSync(join(d, LOCK_FILE))).toBe(true);
  lock.release();
  expect(readdirSync(d)).toEqual([]); // no staging or stale files left behind either
  lockDataDir(d).release();
});

test("a lock whose process is gone is taken over", async () => {
  const d = dir();
  const pid = await deadPid();
  const self = selfIdentity();
  writeFileSync(join(d, LOCK_FILE), JSON.stringify({ pid, bootId: self?.bootId ?? null, startTicks: self ? 12345 : null }));
  const lock = lockDataDir(d);
  expect(JSON.parse(readFileSync(join(d, LOCK_FILE), "utf8")).pid).toBe(process.pid);
  lock.release();
});

test("a lock from another boot is stale even when its pid is running now", () => {
  const self = selfIdentity();
  if (!self) return; // without /proc liveness is pid-only, and this pid runs
  const d = dir();
  writeFileSync(join(d, LOCK_FILE), JSON.stringify({ pid: process.pid, bootId: "00000000-0000-0000-0000-000000000000", startTicks: self.startTicks }));
  lockDataDir(d).release();
});

test("a lock naming this pid with other start ticks (a reused pid) is stale", () => {
  const self = selfIdentity();
  if (!self) return;
  const d = dir();
  writeFileSync(join(d, LOCK_FILE), JSON.stringify({ pid: process.pid, bootId: self.bootId, startTicks: self.startTicks + 1 }));
  lockDataDir(d).release();
});

test("an unreadable lock names no process and is taken over", () => {
  const d = dir();
  writeFileSync(join(d, LOCK_FILE), "{not json");
  lockDataDir(d).release();
  expect(existsSync(join(d, LOCK_FILE))).toBe(false);
});

test("without /proc identities, liveness falls back to the pid", async () => {
  expect(holderRunning({ pid: process.pid, bootId: null, startTicks: null })).toBe(true);
  expect(holderRunning({ pid: await deadPid(), bootId: null, startTicks: null })).toBe(false);
});

test("release leaves a lock that is no longer this holder's", () => {
  const d = dir();
  const lock = lockDataDir(d);
  writeFileSync(join(d, LOCK_FILE), JSON.stringify({ pid: process.pid, bootId: null, startTicks: null, id: "someone else" }));
  lock.release();
  expect(existsSync(join(d, LOCK_FILE))).toBe(true);
});
