import { afterAll, expect, test } from "bun:test";
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openDatabase } from "../db/client";
import { migrate } from "../db/migrate";
import { mediaProcesses } from "../db/schema";
import { createLogger } from "../log";
import { mediaTempDir, testMediaTools } from "../../test/fixtures/media";
import { childRecords, reapOrphans } from "./child-records";
import { runFfmpeg } from "./ffmpeg";
import { identityOf, resolvedBinary, stillRunning, type ProcIdentity } from "./procfs";

const log = createLogger("error");
const tools = testMediaTools();
const endless = ["-f", "lavfi", "-i", "testsrc=size=32x32:rate=5", "-f", "null", "-"]; // runs until killed
const spawned: Bun.Subprocess[] = [];
afterAll(() => spawned.forEach((p) => p.kill("SIGKILL")));

function freshDb() {
  const { sqlite, db } = openDatabase(":memory:");
  migrate(sqlite);
  return db;
}

async function until(check: () => boolean): Promise<void> {
  while (!check()) await Bun.sleep(5);
}

// A process the test starts directly, with its identity read while it surely runs.
function start(argv: string[]): { proc: Bun.Subprocess; id: ProcIdentity } {
  const proc = Bun.spawn(argv, { stdin: "ignore", stdout: "ignore", stderr: "ignore" });
  spawned.push(proc);
  return { proc, id: identityOf(proc.pid)! };
}

function record(db: ReturnType<typeof freshDb>, child: ProcIdentity, owner: ProcIdentity, exe = resolvedBinary(tools.ffmpeg), tool = "ffmpeg") {
  db.insert(mediaProcesses).values({
    id: `r${child.pid}-${owner.pid}-${child.startTicks}`, pid: child.pid, startTicks: child.startTicks, bootId: child.bootId, tool, exe,
    ownerPid: owner.pid, ownerStartTicks: owner.startTicks, startedAt: 0,
  }).run();
}

test("an ffmpeg run through the adapter is recorded (pid, start time, binary, owner) while it runs, and forgotten once it ends", async () => {
  const db = freshDb();
  const abort = new AbortController();
  const running = runFfmpeg({ ...tools, children: childRecords(db, log) }, endless, { signal: abort.signal });
  await until(() => db.select().from(mediaProcesses).all().length === 1);
  const [row] = db.select().from(mediaProcesses).all();
  expect(row.exe).toBe(resolvedBinary(tools.ffmpeg));
  expect(row.tool).toBe("ffmpeg");
  expect(row.ownerPid).toBe(process.pid);
  expect(stillRunning({ pid: row.pid, startTicks: row.startTicks, bootId: row.bootId })).toBe(true);
  abort.abort(new Error("stop"));
  await expect(running).rejects.toThrow("stop");
  expect(db.select().from(mediaProcesses).all()).toEqual([]);
});

test("reapOrphans kills only recorded children of dead owners whose pid still names the same ffmpeg", async () => {
  const db = freshDb();
  const gone = start([tools.ffmpeg, "-version"]);
  await gone.proc.exited; // a dead appliance process
  const self = identityOf(process.pid)!;
  const orphan = start([tools.ffmpeg, ...endless]);
  const kept = start([tools.ffmpeg, ...endless]);
  const other = start(["sleep", "600"]);
  record(db, orphan.id, gone.id); // its owner died: killed
  record(db, kept.id, self); // its owner runs: left alone
  record(db, { ...kept.id, startTicks: kept.id.startTicks + 1 }, gone.id); // same pid, another start time: not this process
  record(db, other.id, gone.id); // same pid and start, but not the recorded binary
  expect(await reapOrphans(db, log)).toBe(1);
  expect(stillRunning(orphan.id)).toBe(false);
  expect(stillRunning(kept.id)).toBe(true);
  expect(stillRunning(other.id)).toBe(true);
  expect(db.select().from(mediaProcesses).all().map((r) => r.pid)).toEqual([kept.id.pid]);
});

test("a recorded script that does not exec (it runs as its interpreter) is known by its path in argv", async () => {
  const db = freshDb();
  const script = join(mediaTempDir(), "whisper-cli");
  writeFileSync(script, "#!/bin/sh\nwhile :; do sleep 1; done\n");
  chmodSync(script, 0o755);
  const gone = start(["true"]);
  await gone.proc.exited;
  const orphan = start([script, "-m", "model.bin"]);
  const stranger = start(["sh", "-c", "sleep 600", script]); // the script's path, but only as $0 of another shell's command
  record(db, orphan.id, gone.id, resolvedBinary(script), "whisper-cli");
  record(db, stranger.id, gone.id, resolvedBinary(script), "whisper-cli");
  expect(await reapOrphans(db, log)).toBe(1);
  expect(stillRunning(orphan.id)).toBe(false);
  expect(stillRunning(stranger.id)).toBe(true);
});
