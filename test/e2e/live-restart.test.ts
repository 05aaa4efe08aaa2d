// Stops mid-broadcast: a graceful stop ends broadcasts cleanly and leaves finished recordings; a
// crash (the server killed) is repaired at the next start. Either way the recording becomes a video,
// `broadcasting` ends false and `ended` fires once.
import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import { rmSync } from "node:fs";
import { resolve } from "node:path";
import { eq } from "drizzle-orm";
import { liveBroadcasts } from "../../src/db/schema";
import { ffprobeJson } from "../fixtures/media";
import { basic, startTestAppliance, tempDir, waitFor } from "../helpers";
import {
  LIVE_TEST_ENV, createLiveStream, ingest, parsePlaylist, publish, recordings, subscribeAll, waitBroadcasting, waitEncoded, webhookReceiver,
} from "./live-support";

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
  await waitFor("three live segments", async () => {
    const res = await fetch(stream.assets.hls);
    return res.status === 200 && parsePlaylist(await res.text()).segments.length >= 3;
  }, 20_000, 50);
  const broadcast = first.ctx.db.select().from(liveBroadcasts).where(eq(liveBroadcasts.liveStreamId, stream.liveStreamId)).get()!;
  const piece = first.ctx.storage.localPath([first.projectId, "sandbox", "live", stream.liveStreamId, "broadcasts", broadcast.id, "p0001.ts"]);

  await first.stop();
  expect(await pub.exited).not.toBe(0); // the server let the publisher go
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
