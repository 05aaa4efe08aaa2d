// Stops mid-broadcast: a graceful stop ends broadcasts cleanly and leaves finished recordings; a
// crash (the server killed) is repaired at the next start. Either way the recording becomes a video,
// `broadcasting` ends false and `ended` fires once. A stop that cuts off the finish job while it
// joins the pieces hands it back, and the next start makes the video; a writer that never ends is
// killed once the stop's grace has passed.
import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import { chmodSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { eq } from "drizzle-orm";
import { openDatabase } from "../../src/db/client";
import { liveBroadcasts } from "../../src/db/schema";
import { createLogger } from "../../src/log";
import { ffprobeJson, mediaTempDir, testMediaTools } from "../fixtures/media";
import { basic, startTestAppliance, tempDir, waitFor } from "../helpers";
import {
  LIVE_TEST_ENV, createLiveStream, ingest, parsePlaylist, publish, recordings, subscribeAll, waitEncoded, webhookReceiver,
} from "./live-support";
import { realTimeFfmpeg } from "./vod-support";

setDefaultTimeout(180_000);

const hooks = webhookReceiver();
const dirs: string[] = [];
afterAll(() => {
  hooks.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const count = (path: string, type: string, id: string) => hooks.events(path, type).filter((e) => e.liveStreamId === id).length;
const env = { ...LIVE_TEST_ENV, VIDHOST_LIVE_RECONNECT_S: "1" };

test("a graceful stop ends the broadcast cleanly, the recording piece is whole, and the next start makes it a video", async () => {
  const dataDir = tempDir();
  dirs.push(dataDir);
  const first = await startTestAppliance({ dataDir, env });
  const key = first.sandboxKey;
  await subscribeAll(first, key, hooks.url("/graceful"));
  const stream = await createLiveStream(first, key, { name: "Interrupted by an upgrade" });
  const pub = publish(ingest(first, stream.streamKey), 60);
  // A deadline, not a speed claim: two ffmpegs starting on a loaded 2-core machine can take a while.
  await waitFor("three live segments", async () => {
    const res = await fetch(stream.assets.hls);
    return res.status === 200 && parsePlaylist(await res.text()).segments.length >= 3;
  }, 60_000, 50);
  const broadcast = first.ctx.db.select().from(liveBroadcasts).where(eq(liveBroadcasts.liveStreamId, stream.liveStreamId)).get()!;
  const piece = first.ctx.storage.localPath([first.projectId, "sandbox", "live", stream.liveStreamId, "broadcasts", broadcast.id, "p0001.ts"]);

  await first.stop();
  expect(await pub.exited).not.toBe(0); // the server let the publisher go
  // The queue stopped before the broadcast ended: its finish job (due 1 s on) waits for the next
  // start instead of joining pieces a stopping process would cut off.
  const { sqlite } = openDatabase(`${dataDir}/vidhost.db`);
  expect(sqlite.prepare("SELECT status, attempts FROM jobs WHERE kind = 'live.finish'").all()).toEqual([{ status: "queued", attempts: 0 }]);
  sqlite.close();
  // The piece was flushed by its writer: a readable MPEG-TS of what was sent.
  const probe = await ffprobeJson(piece);
  expect(probe.streams.map((s) => s.codec_name).sort()).toEqual(["aac", "h264"]);
  expect(Number(probe.format.duration)).toBeGreaterThanOrEqual(2.5);

  const second = await startTestAppliance({ dataDir, env });
  try {
    expect((await (await second.api(key, "GET", `/live-streams/${stream.liveStreamId}`)).json() as { broadcasting: boolean }).broadcasting).toBe(false);
    const [video] = await waitFor("the recording", async () => {
      const list = await recordings(second, key, stream.liveStreamId);
      return list.length ? list : null;
    });
    const status = await waitEncoded(second, key, video.videoId);
    expect(status.encoding.metadata.duration).toBeGreaterThanOrEqual(3);
    await waitFor("the recorded event", () => count("/graceful", "video.source.recorded", stream.liveStreamId) === 1);
    expect(count("/graceful", "live-stream.broadcast.started", stream.liveStreamId)).toBe(1);
    expect(count("/graceful", "live-stream.broadcast.ended", stream.liveStreamId)).toBe(1);
  } finally {
    await second.close();
  }
});

test("a server killed mid-broadcast: the next start sets broadcasting false, fires ended once, and records the broadcast", async () => {
  const dataDir = tempDir();
  dirs.push(dataDir);
  const adminKey = "test-admin-key-0123456789";
  // A real server process, so it can be killed without a chance to clean up.
  const server = Bun.spawn(["bun", resolve(import.meta.dir, "../../src/main.ts"), "serve"], {
    env: {
      ...process.env, ...env, VIDHOST_DATA_DIR: dataDir, VIDHOST_ADMIN_KEY: adminKey, VIDHOST_LOG_LEVEL: "info",
      VIDHOST_API_PORT: "0", VIDHOST_SANDBOX_PORT: "0", VIDHOST_ADMIN_PORT: "0", VIDHOST_RTMP_PORT: "0",
      VIDHOST_WEBHOOK_ALLOW_PRIVATE: "true", // the receiver is on 127.0.0.1
    },
    stdin: "ignore", stdout: "pipe", stderr: "pipe",
  });
  let out = "";
  let err = "";
  void (async () => { for await (const c of server.stdout) out += new TextDecoder().decode(c); })();
  void (async () => { for await (const c of server.stderr) err += new TextDecoder().decode(c); })();
  let pub: ReturnType<typeof publish> | undefined;
  let key = "";
  let stream: Awaited<ReturnType<typeof createLiveStream>>;
  try {
    const line = await waitFor("the listening line", () => err.split("\n").find((l) => / listening \{/.test(l)), 60_000);
    const { ports, sandbox } = JSON.parse(line.slice(line.indexOf("{"))) as { sandbox: string; ports: { rtmp: number } };
    key = await waitFor("the printed sandbox key", () => /Sandbox API key \(shown once\):\s*(\S+)/.exec(out)?.[1]);
    const call = (method: string, path: string, body?: unknown) =>
      fetch(sandbox + path, { method, headers: { authorization: basic(key), "content-type": "application/json" }, body: body ? JSON.stringify(body) : undefined });
    await call("POST", "/webhooks", { events: ["live-stream.broadcast.started", "live-stream.broadcast.ended", "video.source.recorded"], url: hooks.url("/crash") });
    stream = (await (await call("POST", "/live-streams", { name: "Power cut" })).json()) as typeof stream;
    pub = publish(`rtmp://127.0.0.1:${ports.rtmp}/s/${stream.streamKey}`, 60);
    await waitFor("broadcasting", async () => ((await (await call("GET", `/live-streams/${stream.liveStreamId}`)).json()) as { broadcasting: boolean }).broadcasting, 20_000, 50);
    await waitFor("two live segments", async () => {
      const res = await fetch(stream.assets.hls);
      return res.status === 200 && parsePlaylist(await res.text()).segments.length >= 2;
    }, 20_000, 50);
    await waitFor("the started event", () => count("/crash", "live-stream.broadcast.started", stream.liveStreamId) === 1);
  } finally {
    server.kill("SIGKILL");
    await server.exited;
  }
  expect(await pub!.exited).not.toBe(0);

  const next = await startTestAppliance({ dataDir, env: { ...env, VIDHOST_ADMIN_KEY: adminKey } });
  try {
    expect((await (await next.api(key, "GET", `/live-streams/${stream!.liveStreamId}`)).json() as { broadcasting: boolean }).broadcasting).toBe(false);
    const [video] = await waitFor("the recording", async () => {
      const list = await recordings(next, key, stream!.liveStreamId);
      return list.length ? list : null;
    });
    expect((await waitEncoded(next, key, video.videoId)).encoding.metadata.duration).toBeGreaterThanOrEqual(1);
    await waitFor("the recorded event", () => count("/crash", "video.source.recorded", stream!.liveStreamId) === 1);
    expect(count("/crash", "live-stream.broadcast.started", stream!.liveStreamId)).toBe(1);
    expect(count("/crash", "live-stream.broadcast.ended", stream!.liveStreamId)).toBe(1);
  } finally {
    await next.close();
  }
});

// The first appliance's ffmpeg reads its input at native speed (-re), so joining the pieces takes
// as long as the recording and the stop surely lands while the broadcast is "finalizing".
test("a stop while the finish job joins the pieces: the next start takes the job over and makes the video", async () => {
  const dataDir = tempDir();
  dirs.push(dataDir);
  const first = await startTestAppliance({ dataDir, env: { ...env, VIDHOST_FFMPEG: realTimeFfmpeg() } });
  const key = first.sandboxKey;
  await subscribeAll(first, key, hooks.url("/finalizing"));
  const stream = await createLiveStream(first, key, { name: "Stopped while finishing" });
  const pub = publish(ingest(first, stream.streamKey), 60);
  await waitFor("three live segments", async () => {
    const res = await fetch(stream.assets.hls);
    return res.status === 200 && parsePlaylist(await res.text()).segments.length >= 3;
  }, 60_000, 50);
  expect((await first.api(key, "PUT", `/live-streams/${stream.liveStreamId}/complete`)).status).toBe(202);
  expect(await pub.exited).not.toBe(0);
  const broadcast = () => first.ctx.db.select().from(liveBroadcasts).where(eq(liveBroadcasts.liveStreamId, stream.liveStreamId)).get()!;
  await waitFor("finalizing", () => broadcast().state === "finalizing", 60_000, 5);
  await first.stop();
  // The stop landed mid-join: the broadcast is left finalizing, its job handed back.
  const { sqlite } = openDatabase(`${dataDir}/vidhost.db`);
  expect(sqlite.prepare("SELECT state FROM live_broadcasts WHERE live_stream_id = ?").get(stream.liveStreamId)).toEqual({ state: "finalizing" });
  expect(sqlite.prepare("SELECT status, attempts FROM jobs WHERE kind = 'live.finish'").all()).toEqual([{ status: "queued", attempts: 0 }]);
  sqlite.close();

  const second = await startTestAppliance({ dataDir, env });
  try {
    const [video] = await waitFor("the recording", async () => {
      const list = await recordings(second, key, stream.liveStreamId);
      return list.length ? list : null;
    }, 60_000);
    expect((await waitEncoded(second, key, video.videoId)).encoding.metadata.duration).toBeGreaterThanOrEqual(3);
    await waitFor("the recorded event", () => count("/finalizing", "video.source.recorded", stream.liveStreamId) === 1);
    expect(count("/finalizing", "live-stream.broadcast.ended", stream.liveStreamId)).toBe(1);
  } finally {
    await second.close();
  }
});

// An "ffmpeg" that, once the real one has finished, turns into a sleep that outlasts the test: the
// writer never ends by itself, so only the stop's kill (after its grace) lets the stop return.
test("a writer that does not end after its input did is killed once the stop's grace has passed", async () => {
  const lingering = join(mediaTempDir(), "ffmpeg-lingering");
  writeFileSync(lingering, `#!/bin/sh\n${JSON.stringify(testMediaTools().ffmpeg)} "$@"\nexec sleep 600\n`);
  chmodSync(lingering, 0o755);
  const logs: string[] = [];
  const app = await startTestAppliance({ env: { ...env, VIDHOST_FFMPEG: lingering }, log: createLogger("warn", (line) => logs.push(line)) });
  const stream = await createLiveStream(app, app.sandboxKey, { name: "A writer that lingers" });
  const pub = publish(ingest(app, stream.streamKey), 60);
  try {
    await waitFor("two live segments", async () => {
      const res = await fetch(stream.assets.hls);
      return res.status === 200 && parsePlaylist(await res.text()).segments.length >= 2;
    }, 60_000, 50);
    await app.close();
    expect(logs.some((l) => l.includes("writers did not finish in time and were killed"))).toBe(true);
  } finally {
    pub.proc.kill("SIGKILL");
  }
});
