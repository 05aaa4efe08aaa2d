// One appliance per data directory: a second start is refused before it touches anything (temp
// files, broadcasts, migrations), with one line naming the directory and the holder's pid.
import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { DataDirLockedError, LOCK_FILE } from "../src/db/data-lock";
import { liveStreams } from "../src/db/schema";
import { spawned } from "./fixtures/spawned";
import { startTestAppliance, tempDir } from "./helpers";

setDefaultTimeout(60_000);

const root = join(import.meta.dir, "..");
const children = spawned();
afterAll(() => children.cleanUp());

const childEnv = (dataDir: string) => ({
  ...process.env, VIDHOST_DATA_DIR: dataDir, VIDHOST_API_PORT: "0", VIDHOST_SANDBOX_PORT: "0", VIDHOST_ADMIN_PORT: "0",
  VIDHOST_RTMP_PORT: "0", VIDHOST_ADMIN_KEY: "test-admin-key-0123456789", VIDHOST_LOG_LEVEL: "error",
});

/** Runs `bun src/main.ts <args>` to its end. */
async function cli(args: string[], dataDir: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const proc = Bun.spawn([process.execPath, "src/main.ts", ...args], { cwd: root, env: childEnv(dataDir), stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  children.track(proc);
  const [code, stdout, stderr] = await Promise.all([proc.exited, new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  return { code, stdout, stderr };
}

const refusal = (dataDir: string, pid: number) =>
  `vidhost: the data directory ${dataDir} is in use by another vidhost process (pid ${pid}); stop it first or use another --data-dir\n`;

test("a second start on a running appliance's data directory is refused and leaves its temp files and broadcasts alone", async () => {
  const dataDir = tempDir();
  children.dir(dataDir);
  const first = await startTestAppliance({ dataDir });
  try {
    // An upload in flight, and a stream on air.
    const tmpFile = join(dataDir, "media", ".tmp", "upload-in-flight");
    writeFileSync(tmpFile, "half an upload");
    const res = await first.api(first.sandboxKey, "POST", "/live-streams", { name: "on air" });
    const { liveStreamId } = (await res.json()) as { liveStreamId: string };
    first.ctx.db.update(liveStreams).set({ broadcasting: true }).where(eq(liveStreams.id, liveStreamId)).run();

    const err = await startTestAppliance({ dataDir }).then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(DataDirLockedError);
    expect((err as Error).message).toBe(refusal(dataDir, process.pid).slice("vidhost: ".length, -1));

    expect(readFileSync(tmpFile, "utf8")).toBe("half an upload");
    expect(first.ctx.db.select().from(liveStreams).where(eq(liveStreams.id, liveStreamId)).get()!.broadcasting).toBe(true);
    // The first still owns its lock and still serves.
    expect(JSON.parse(readFileSync(join(dataDir, LOCK_FILE), "utf8")).pid).toBe(process.pid);
    expect((await first.api(first.sandboxKey, "GET", `/live-streams/${liveStreamId}`)).status).toBe(200);
  } finally {
    await first.close();
  }
  // After a graceful stop the lock is gone and the next start works.
  expect(existsSync(join(dataDir, LOCK_FILE))).toBe(false);
  const again = await startTestAppliance({ dataDir });
  await again.close();
});

test("a lock left by a process that is gone is taken over at start", async () => {
  const dataDir = tempDir();
  children.dir(dataDir);
  const gone = Bun.spawn(["true"]);
  await gone.exited;
  writeFileSync(join(dataDir, LOCK_FILE), JSON.stringify({ pid: gone.pid, bootId: "00000000-0000-0000-0000-000000000000", startTicks: 1 }));
  const app = await startTestAppliance({ dataDir });
  try {
    expect(JSON.parse(readFileSync(join(dataDir, LOCK_FILE), "utf8")).pid).toBe(process.pid);
  } finally {
    await app.close();
  }
  expect(existsSync(join(dataDir, LOCK_FILE))).toBe(false);
});

test("`vidhost serve` and `vidhost migrate` print one line naming the holder and exit non-zero while another process serves", async () => {
  const dataDir = tempDir();
  children.dir(dataDir);
  const { proc: holder, info } = await children.appliance(dataDir);
  expect(info.pid).toBe(holder.pid);

  const serve = await cli(["serve"], dataDir);
  expect(serve.code).toBe(1);
  expect(serve.stderr).toBe(refusal(dataDir, holder.pid));
  expect(serve.stdout).toBe("");
  const migrate = await cli(["migrate"], dataDir);
  expect(migrate.code).toBe(1);
  expect(migrate.stderr).toBe(refusal(dataDir, holder.pid));

  holder.kill("SIGTERM");
  expect(await holder.exited).toBe(0);
  expect(existsSync(join(dataDir, LOCK_FILE))).toBe(false);
  const after = await cli(["migrate"], dataDir);
  expect(after).toEqual({ code: 0, stdout: "database is up to date\n", stderr: "" });
});

test("a data directory is created and locked by migrate on a fresh path", async () => {
  const parent = tempDir();
  children.dir(parent);
  const dataDir = join(parent, "fresh");
  const run = await cli(["migrate"], dataDir);
  expect(run.code).toBe(0);
  expect(existsSync(join(dataDir, "vidhost.db"))).toBe(true);
  expect(existsSync(join(dataDir, LOCK_FILE))).toBe(false);
});
