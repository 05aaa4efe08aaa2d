// The node-media-server adapter on its own, with real ffmpeg publishers and readers on port 0.
import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import net from "node:net";
import { createLogger } from "../log";
import { testMediaTools } from "../../test/fixtures/media";
import { waitFor } from "../../test/helpers";
import { startRtmpServer, type MediaInfo, type PublishDecision, type RtmpServer } from "./rtmp";

setDefaultTimeout(60_000);

const log = createLogger("error");
const servers: RtmpServer[] = [];
const procs: ReturnType<typeof Bun.spawn>[] = [];
afterEach(async () => {
  for (const p of procs.splice(0)) p.kill("SIGKILL");
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

interface Seen { media: MediaInfo[]; progress: number; ends: number }

/** A server accepting keys in `keys` (stream id = "id-" + key) and recording what each publisher reports. */
async function server(keys: string[], opts: { publishIdleMs?: number; handshakeTimeoutMs?: number } = {}) {
  const seen = new Map<string, Seen>();
  const s = await startRtmpServer({
    host: "127.0.0.1", port: 0, log, ...opts,
    publish: ({ app, name }): PublishDecision => {
      if (app !== "s" || !keys.includes(name)) return { accept: false, reason: "unknown stream key" };
      const streamId = `id-${name}`;
      const entry: Seen = seen.get(streamId) ?? { media: [], progress: 0, ends: 0 };
      seen.set(streamId, entry);
      return { accept: true, streamId, events: () => ({ media: (i) => entry.media.push(i), progress: (ms) => (entry.progress = ms), end: () => entry.ends++ }) };
    },
  });
  servers.push(s);
  return { s, seen };
}

function ffmpeg(args: string[]) {
  const proc = Bun.spawn([testMediaTools().ffmpeg, "-hide_banner", "-loglevel", "error", ...args], { stdin: "ignore", stdout: "ignore", stderr: "pipe" });
  procs.push(proc);
  const stderr = new Response(proc.stderr).text();
  return { proc, stderr, exited: proc.exited };
}

const publish = (url: string, seconds: number, realTime = true) => ffmpeg([
  ...(realTime ? ["-re"] : []), "-f", "lavfi", "-i", "testsrc2=size=320x180:rate=30", "-f", "lavfi", "-i", "sine",
  "-t", String(seconds), "-c:v", "libx264", "-preset", "ultrafast", "-g", "30", "-c:a", "aac", "-f", "flv", url,
]);

describe("node-media-server behind the adapter", () => {
  test("binds port 0 and reports the port; a publish reports media, progress and one end", async () => {
    const { s, seen } = await server(["k1"]);
    expect(s.port).toBeGreaterThan(0);
    const pub = publish(`rtmp://127.0.0.1:${s.port}/s/k1`, 2);
    await waitFor("publishing", () => s.isPublishing("id-k1"));
    expect(await pub.exited).toBe(0);
    await waitFor("end", () => seen.get("id-k1")!.ends === 1);
    const entry = seen.get("id-k1")!;
    expect(entry.media).toEqual([{ videoCodec: "h264", audioCodec: "aac", width: 320, height: 180, frameRate: 30, bitrateKbps: expect.any(Number) }]);
    expect(entry.progress).toBeGreaterThan(1800);
    expect(s.isPublishing("id-k1")).toBe(false);
  });

  test("an unknown key, another application and a second publisher are refused with the reason", async () => {
    const { s } = await server(["k1"]);
    const unknown = publish(`rtmp://127.0.0.1:${s.port}/s/nope`, 2);
    expect(await unknown.exited).not.toBe(0);
    expect(await unknown.stderr).toContain("unknown stream key");
    const otherApp = publish(`rtmp://127.0.0.1:${s.port}/live/k1`, 2);
    expect(await otherApp.exited).not.toBe(0);

    const first = publish(`rtmp://127.0.0.1:${s.port}/s/k1`, 30);
    await waitFor("first publisher", () => s.isPublishing("id-k1"));
    const second = publish(`rtmp://127.0.0.1:${s.port}/s/k1`, 2);
    expect(await second.exited).not.toBe(0);
    expect(await second.stderr).toContain("already has a publisher");
    expect(s.isPublishing("id-k1")).toBe(true);
    expect(s.disconnect("id-k1")).toBe(true);
    expect(await first.exited).not.toBe(0);
    expect(s.disconnect("id-k1")).toBe(false);
  });

  test("only the reader URL (with its token) may play; the reader gets the stream until the publisher leaves", async () => {
    // A handshake deadline far shorter than the publish: neither the publisher nor the reader is cut by it.
    const { s } = await server(["k1"], { handshakeTimeoutMs: 1000 });
    const pub = publish(`rtmp://127.0.0.1:${s.port}/s/k1`, 3);
    await waitFor("publishing", () => s.isPublishing("id-k1"));
    const thief = ffmpeg(["-i", `rtmp://127.0.0.1:${s.port}/s/k1`, "-t", "1", "-f", "null", "-"]);
    expect(await thief.exited).not.toBe(0);
    const guess = ffmpeg(["-i", s.readerUrl("id-k1").replace(/reader=\w+/, "reader=0000"), "-t", "1", "-f", "null", "-"]);
    expect(await guess.exited).not.toBe(0);
    // -progress shows what the reader got; it ends by itself when the publisher leaves.
    const reader = Bun.spawn([testMediaTools().ffmpeg, "-hide_banner", "-loglevel", "error", "-i", s.readerUrl("id-k1"), "-c", "copy", "-f", "null", "-", "-progress", "pipe:1"], { stdout: "pipe", stderr: "ignore" });
    procs.push(reader);
    const progress = new Response(reader.stdout).text();
    expect(await pub.exited).toBe(0);
    expect(await reader.exited).toBe(0);
    const frames = Math.max(...[...(await progress).matchAll(/^frame=(\d+)/gm)].map((m) => Number(m[1])));
    expect(frames).toBeGreaterThan(30);
  });

  test("two servers in one process share nothing, even for the same stream name", async () => {
    const a = await server(["same"]);
    const b = await server(["same"]);
    const pa = publish(`rtmp://127.0.0.1:${a.s.port}/s/same`, 30);
    const pb = publish(`rtmp://127.0.0.1:${b.s.port}/s/same`, 30);
    await waitFor("both publishing", () => a.s.isPublishing("id-same") && b.s.isPublishing("id-same"));
    a.s.disconnect("id-same");
    await pa.exited;
    await waitFor("a's end", () => a.seen.get("id-same")!.ends === 1);
    expect(b.s.isPublishing("id-same")).toBe(true);
    expect(b.seen.get("id-same")!.ends).toBe(0);
    b.s.disconnect("id-same");
    await pb.exited;
  });

  test("a publisher that goes silent (stopped, not closed) is dropped", async () => {
    const { s, seen } = await server(["k1"], { publishIdleMs: 500 });
    const pub = publish(`rtmp://127.0.0.1:${s.port}/s/k1`, 30);
    await waitFor("media", () => seen.get("id-k1")?.media.length);
    pub.proc.kill("SIGSTOP");
    await waitFor("dropped", () => seen.get("id-k1")!.ends === 1, 10_000);
    expect(s.isPublishing("id-k1")).toBe(false);
    pub.proc.kill("SIGKILL");
  });

  test("a hook that throws refuses or cuts off that publish and leaves the server serving", async () => {
    let calls = 0;
    const logged: string[] = [];
    const s = await startRtmpServer({
      host: "127.0.0.1", port: 0, log: createLogger("error", (line) => logged.push(line)),
      publish: () => {
        if (++calls === 1) throw new Error("database is locked");
        return { accept: true, streamId: "ok", events: () => ({ media: () => { throw new Error("media hook"); }, progress: () => {}, end: () => {} }) };
      },
    });
    servers.push(s);
    const first = publish(`rtmp://127.0.0.1:${s.port}/s/k`, 2);
    expect(await first.exited).not.toBe(0);
    expect(await first.stderr).toContain("internal error");
    // A throwing media hook (its broadcast could not be recorded) is logged and the publisher cut
    // off, so its software reports it rather than streaming into nothing; the server goes on serving.
    const second = publish(`rtmp://127.0.0.1:${s.port}/s/k`, 30);
    expect(await second.exited).not.toBe(0);
    expect(logged.some((l) => l.includes("publish decision failed") && l.includes("database is locked"))).toBe(true);
    expect(logged.some((l) => l.includes("media start failed"))).toBe(true);
  });

  test("a connection that never publishes nor plays is closed: silent, or stuck halfway through the handshake", async () => {
    const { s } = await server(["k1"], { handshakeTimeoutMs: 200 });
    const connect = (send?: Buffer) => new Promise<net.Socket>((resolve, reject) => {
      const socket = net.connect(s.port, "127.0.0.1", () => {
        if (send) socket.write(send);
        resolve(socket);
      });
      socket.once("error", reject);
    });
    const closed = (socket: net.Socket) => new Promise<void>((resolve) => (socket.destroyed ? resolve() : socket.once("close", () => resolve())));
    const silent = await connect();
    // C0 (version 3) and C1 (1536 bytes): the server answers S0-S2 and then waits for C2, which never comes.
    const halfway = await connect(Buffer.concat([Buffer.from([3]), Buffer.alloc(1536)]));
    halfway.on("data", () => {});
    await Promise.all([closed(silent), closed(halfway)]);
  });

  test("a taken port is an error, not an exit", async () => {
    const { s } = await server([]);
    await expect(startRtmpServer({ host: "127.0.0.1", port: s.port, log, publish: () => ({ accept: false, reason: "" }) })).rejects.toThrow("already in use");
  });
});
