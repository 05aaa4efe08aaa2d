// A hard kill of the appliance (SIGKILL, OOM, power) leaves its ffmpeg and whisper-cli children
// running: the kernel does not end them with their parent. The next start on the same data
// directory must kill them before any job resumes, and the interrupted encode must finish with
// outputs of its own.
import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import { chmodSync, existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import ApiVideoClient from "@api.video/nodejs-client";
import { openDatabase } from "../../src/db/client";
import { identityOf, stillRunning, type ProcIdentity } from "../../src/media/procfs";
import { ffprobeJson, makeClip } from "../fixtures/media";
import { spawned } from "../fixtures/spawned";
import { tempDir, waitFor } from "../helpers";
import { LIVE_TEST_ENV, publish } from "./live-support";
import { NO_RATE_LIMITS, realTimeFfmpeg } from "./vod-support";

setDefaultTimeout(240_000);

const children = spawned();
afterAll(() => children.cleanUp());

/** Starts an appliance process on `dataDir` (no rate limits); resolves once it listens (it has reaped orphans by then). */
const startProcess = (dataDir: string, env: Record<string, string> = {}) => children.appliance(dataDir, { ...NO_RATE_LIMITS, ...env });

/** Segment files ffmpeg has written below an attempt folder so far. */
function segments(attemptDir: string): string[] {
  try {
    return readdirSync(join(attemptDir, "hls"), { recursive: true }).map(String).filter((f) => f.endsWith(".ts"));
  } catch {
    return [];
  }
}

/** Children of `parent` (from /proc) whose command line contains every one of `words`. */
function childrenWith(parent: number, words: string[]): { id: ProcIdentity; argv: string[] }[] {
  const found: { id: ProcIdentity; argv: string[] }[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) !== parent) continue;
      const argv = readFileSync(`/proc/${name}/cmdline`, "utf8").split("\0");
      const id = identityOf(Number(name));
      if (id && words.every((w) => argv.some((a) => a.includes(w)))) found.push({ id, argv });
    } catch {
      // the process ended while being read
    }
  }
  return found;
}

test("SIGKILL mid-encode: the orphaned ffmpeg survives its parent, the next start kills it, and the encode finishes with clean outputs", async () => {
  const dataDir = tempDir();
  children.dir(dataDir);
  // Not remuxable (MPEG-4 part 2) and in the sandbox (watermark): the whole ladder is one ffmpeg
  // run, at native speed (-re, through a script that execs ffmpeg) so it lasts the clip's 10 s.
  const clip = await makeClip({ width: 640, height: 360, seconds: 10, codec: "mpeg4" });
  const env = { VIDHOST_FFMPEG: realTimeFfmpeg() };
  const first = await startProcess(dataDir, env);
  const key = first.info.sandboxKey!;
  const client = new ApiVideoClient({ apiKey: key, baseUri: first.info.urls.sandbox });
  const { videoId } = await client.videos.create({ title: "Interrupted by a crash" });
  await client.videos.upload(videoId, clip);

  const [encoder] = await waitFor("the ladder ffmpeg", () => {
    const found = childrenWith(first.proc.pid, [videoId, "attempts", "-var_stream_map"]);
    return found.length ? found : null;
  }, 60_000, 5);
  // The attempt folder ffmpeg writes into: …/videos/{id}/attempts/{attempt}/hls/%v/seg_%05d.ts
  const attemptDir = encoder.argv.find((a) => a.includes("/attempts/"))!.replace(/\/hls\/.*$/, "");
  await waitFor("the first segment", () => segments(attemptDir).length > 0, 60_000, 5);
  first.proc.kill("SIGKILL");
  await first.proc.exited;
  // Nothing ends it with its parent: this is what the next start has to clean up.
  expect(stillRunning(encoder.id)).toBe(true);

  const second = await startProcess(dataDir, env);
  // Killed before the second process listened (and so before any job resumed).
  expect(stillRunning(encoder.id)).toBe(false);

  const resumed = new ApiVideoClient({ apiKey: key, baseUri: second.info.urls.sandbox });
  const status = await waitFor("every quality encoded", async () => {
    const s = await resumed.videos.getStatus(videoId);
    const failed = s.encoding?.qualities?.find((q) => q.status === "failed");
    if (failed) throw new Error(`${failed.type} ${failed.quality} failed`);
    const qs = s.encoding?.qualities ?? [];
    return qs.length && qs.every((q) => q.status === "encoded") ? s : null;
  }, 180_000, 100);
  expect(status.encoding?.qualities?.map((q) => `${q.type} ${q.quality}`).sort()).toEqual(["hls 240p", "hls 360p", "mp4 360p"]);

  // The attempt the orphan wrote into is gone, and each rendition folder holds exactly what its playlist lists.
  const videoDir = join(dataDir, "media", second.info.projectId ?? first.info.projectId!, "sandbox", "videos", videoId);
  expect(attemptDir.startsWith(join(videoDir, "attempts"))).toBe(true);
  expect(existsSync(attemptDir)).toBe(false);
  expect(readdirSync(join(videoDir, "attempts"))).toEqual([]);
  for (const rung of ["240p", "360p"]) {
    const playlist = readFileSync(join(videoDir, "hls", rung, "index.m3u8"), "utf8");
    expect(playlist).toContain("#EXT-X-ENDLIST");
    const listed = playlist.split("\n").filter((l) => l && !l.startsWith("#"));
    expect(readdirSync(join(videoDir, "hls", rung)).sort()).toEqual(["index.m3u8", ...listed].sort());
  }
  const mp4 = await ffprobeJson(join(videoDir, "mp4", "source.mp4"));
  expect(Number(mp4.format.duration)).toBeGreaterThan(9.5);
  expect(mp4.streams.find((s) => s.codec_type === "video")?.height).toBe(360);

  second.proc.kill("SIGTERM");
  expect(await second.proc.exited).toBe(0);
});

// The writer reads the appliance's own RTMP server, so it usually ends by itself when that socket
// closes with the killed process; the next start kills it if it did not.
test("SIGKILL mid-broadcast: the live writer ffmpeg is gone once the next start listens, and the stream is not broadcasting", async () => {
  const dataDir = tempDir();
  children.dir(dataDir);
  const first = await startProcess(dataDir, LIVE_TEST_ENV);
  const key = first.info.sandboxKey!;
  const client = new ApiVideoClient({ apiKey: key, baseUri: first.info.urls.sandbox });
  const stream = await client.liveStreams.create({ name: "Interrupted by a crash" });
  const pub = publish(`${first.info.urls.rtmp}/s/${stream.streamKey}`, 120);
  try {
    const [writer] = await waitFor("the live writer", () => {
      const found = childrenWith(first.proc.pid, [stream.liveStreamId, "index.m3u8"]);
      return found.length ? found : null;
    }, 60_000, 5);
    await waitFor("broadcasting", async () => (await client.liveStreams.get(stream.liveStreamId)).broadcasting);
    first.proc.kill("SIGKILL");
    await first.proc.exited;

    const second = await startProcess(dataDir, LIVE_TEST_ENV);
    expect(stillRunning(writer.id)).toBe(false);
    const resumed = new ApiVideoClient({ apiKey: key, baseUri: second.info.urls.sandbox });
    expect((await resumed.liveStreams.get(stream.liveStreamId)).broadcasting).toBe(false);
    second.proc.kill("SIGTERM");
    expect(await second.proc.exited).toBe(0);
  } finally {
    pub.proc.kill("SIGKILL");
  }
});

// whisper.cpp's whisper-cli (VIDHOST_STT=whisper-cpp) is recorded like ffmpeg. The stand-in is a
// shell script that sleeps until killed without exec'ing, so it runs as /bin/sh with its own path
// as argv[1]: the reaper must recognise it from that.
test("SIGKILL mid-transcription: the orphaned whisper-cli survives its parent and the next start kills it", async () => {
  const dataDir = tempDir();
  children.dir(dataDir);
  const cli = join(dataDir, "whisper-cli");
  // Bounded (10 minutes) so a failed run leaves nothing behind for long.
  writeFileSync(cli, "#!/bin/sh\ni=0\nwhile [ $i -lt 600 ]; do sleep 1; i=$((i + 1)); done\n");
  chmodSync(cli, 0o755);
  const env = { VIDHOST_STT: "whisper-cpp", VIDHOST_WHISPER_CLI: cli, VIDHOST_WHISPER_MODEL: join(dataDir, "ggml-stand-in.bin") };
  const clip = await makeClip({ width: 160, height: 90, seconds: 1 });
  const first = await startProcess(dataDir, env);
  const client = new ApiVideoClient({ apiKey: first.info.sandboxKey!, baseUri: first.info.urls.sandbox });
  const { videoId } = await client.videos.create({ title: "Transcribed when a crash came", transcript: true });
  await client.videos.upload(videoId, clip);

  const [whisper] = await waitFor("whisper-cli", () => {
    const found = childrenWith(first.proc.pid, [cli, "-oj"]);
    return found.length ? found : null;
  }, 60_000, 5);
  try {
    // The child shows in /proc a moment before the appliance has written its record: wait for it.
    const { sqlite } = openDatabase(join(dataDir, "vidhost.db"));
    try {
      const row = await waitFor("the whisper-cli record", () => sqlite.prepare("SELECT tool FROM media_processes WHERE pid = ?").get(whisper.id.pid), 10_000, 5);
      expect(row).toEqual({ tool: "whisper-cli" });
    } finally {
      sqlite.close();
    }
    first.proc.kill("SIGKILL");
    await first.proc.exited;
    expect(stillRunning(whisper.id)).toBe(true);

    // Without an engine this time, so the resumed transcript job starts no new stand-in.
    const second = await startProcess(dataDir);
    expect(stillRunning(whisper.id)).toBe(false);
    second.proc.kill("SIGTERM");
    expect(await second.proc.exited).toBe(0);
  } finally {
    if (stillRunning(whisper.id)) process.kill(whisper.id.pid, "SIGKILL");
  }
});
