// Real ffmpeg on tiny synthetic clips: the argument builders produce what players need.
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { ffprobeJson, makeClip, makeNotAVideo, mediaTempDir, testMediaTools } from "../../test/fixtures/media";
import { hlsLadderArgs, mp4FromHlsArgs, remuxHlsArgs, thumbnailArgs, watermarkInput } from "./args";
import { keyframeTimes, MediaError, mediaToolsVersion, probe, runFfmpeg } from "./ffmpeg";
import { ladderFor } from "./ladder";

const tools = testMediaTools();
const dirs: string[] = [];
const tmp = () => {
  const d = mediaTempDir();
  dirs.push(d);
  return d;
};
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const T = 60_000;

/** EXTINF durations of a media playlist. */
const extinf = (playlist: string) =>
  [...readFileSync(playlist, "utf8").matchAll(/#EXTINF:([\d.]+),/g)].map((m) => Number(m[1]));
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

describe("probe", () => {
  test("reads a 2 s 720p H.264/AAC clip", async () => {
    const clip = await makeClip({ width: 1280, height: 720, seconds: 2, out: join(tmp(), "c.mp4") });
    const p = await probe(tools, clip);
    expect(p).toMatchObject({
      width: 1280, height: 720, rotation: 0, videoCodec: "h264", pixelFormat: "yuv420p", frameRate: 25,
      audioCodec: "aac", sampleRate: 48000, hasAudio: true,
    });
    expect(p.durationS).toBeCloseTo(2, 1);
    expect(p.formatName).toContain("mp4");
    expect(p.sizeBytes).toBeGreaterThan(1000);
    expect(p.bitrateKbps).toBeGreaterThan(0);
  }, T);

  test("a rotated phone clip reports its portrait display size", async () => {
    const clip = await makeClip({ width: 320, height: 180, seconds: 1, portrait: true, audio: false, out: join(tmp(), "p.mp4") });
    const p = await probe(tools, clip);
    expect([p.width, p.height]).toEqual([180, 320]);
    expect(p.rotation % 180).toBe(90);
    expect(p.hasAudio).toBe(false);
  }, T);

  test("junk is a MediaError with a readable reason and no server path", async () => {
    const junk = makeNotAVideo(tmp());
    const err = await probe(tools, junk).catch((e) => e);
    expect(err).toBeInstanceOf(MediaError);
    expect(err.reason).toMatch(/^(ffprobe could not read the file: |The file is not a video: )\S/);
    expect(err.reason).not.toContain("/");
  }, T);

  test("audio alone is not a video", async () => {
    const file = join(tmp(), "tone.m4a");
    await runFfmpeg(tools, ["-f", "lavfi", "-i", "sine=duration=1", "-c:a", "aac", file]);
    const err = await probe(tools, file).catch((e) => e);
    expect(err).toBeInstanceOf(MediaError);
    expect(err.reason).toBe("The file is not a video: no video stream found");
  }, T);
});

describe("encoding", () => {
  test("one process encodes the 720p ladder; the MP4 is a copy of its top rung", async () => {
    const dir = tmp();
    const clip = await makeClip({ width: 1280, height: 720, seconds: 2, out: join(dir, "src.mp4") });
    const source = await probe(tools, clip);
    const ladder = ladderFor(source);
    const out = join(dir, "hls");
    await runFfmpeg(tools, hlsLadderArgs(clip, ladder, out, { hasAudio: true, frameRate: source.frameRate, segmentS: 1, preset: "ultrafast" }));
    expect(readdirSync(out).sort()).toEqual(["240p", "360p", "480p", "720p"]);
    for (const r of ladder) {
      const seg = await ffprobeJson(join(out, r.name, "seg_00000.ts"));
      const v = seg.streams.find((s) => s.codec_type === "video")!;
      expect([v.codec_name, v.width, v.height]).toEqual(["h264", r.width, r.height]);
      expect(seg.streams.some((s) => s.codec_type === "audio" && s.codec_name === "aac")).toBe(true);
      expect(sum(extinf(join(out, r.name, "index.m3u8")))).toBeCloseTo(2, 1);
    }
    const mp4 = join(dir, "top.mp4");
    await runFfmpeg(tools, mp4FromHlsArgs(join(out, "720p", "index.m3u8"), mp4));
    const m = await probe(tools, mp4);
    expect([m.width, m.height, m.videoCodec, m.audioCodec]).toEqual([1280, 720, "h264", "aac"]);
    expect(m.durationS).toBeCloseTo(2, 1);
  }, T);

  test("an H.264 source remuxes into a playable HLS rendition", async () => {
    const dir = tmp();
    const clip = await makeClip({ width: 640, height: 360, seconds: 2, out: join(dir, "src.mp4") });
    await runFfmpeg(tools, remuxHlsArgs(clip, join(dir, "360p"), { segmentS: 1, hasAudio: true }));
    const seg = await ffprobeJson(join(dir, "360p", "seg_00000.ts"));
    expect(seg.streams.map((s) => s.codec_name).sort()).toEqual(["aac", "h264"]);
    expect(sum(extinf(join(dir, "360p", "index.m3u8")))).toBeCloseTo(2, 1);
    const silent = await makeClip({ width: 320, height: 180, seconds: 1, audio: false, out: join(dir, "silent.mp4") });
    await runFfmpeg(tools, remuxHlsArgs(silent, join(dir, "180p"), { segmentS: 1, hasAudio: false }));
    expect((await ffprobeJson(join(dir, "180p", "seg_00000.ts"))).streams.map((s) => s.codec_name)).toEqual(["h264"]);
  }, T);

  test("a thumbnail is one JPEG, scaled when asked", async () => {
    const dir = tmp();
    const clip = await makeClip({ width: 640, height: 360, seconds: 2, codec: "mpeg4", out: join(dir, "src.mp4") });
    const jpg = join(dir, "thumb.jpg");
    await runFfmpeg(tools, thumbnailArgs(clip, 1, jpg, { width: 320 }), { nice: true });
    expect([...readFileSync(jpg).subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff]);
    const v = (await ffprobeJson(jpg)).streams[0];
    expect([v.width, v.height]).toEqual([320, 180]);
  }, T);

  test("the sandbox limit cuts a 40 s clip to 30 s", async () => {
    const dir = tmp();
    const clip = await makeClip({ width: 160, height: 90, seconds: 40, fps: 10, out: join(dir, "src.mp4") });
    const ladder = ladderFor({ width: 160, height: 90 });
    expect(ladder.map((r) => [r.name, r.width, r.height])).toEqual([["240p", 160, 90]]);
    await runFfmpeg(tools, hlsLadderArgs(clip, ladder, join(dir, "hls"), { hasAudio: true, frameRate: 10, segmentS: 6, limitS: 30, preset: "ultrafast" }));
    const total = sum(extinf(join(dir, "hls", "240p", "index.m3u8")));
    expect(total).toBeLessThanOrEqual(30.05);
    expect(total).toBeGreaterThan(29);
  }, T);

  test("with the source's keyframe times, encoded rungs cut segments where the remux does", async () => {
    const dir = tmp();
    // Keyframes every 1.6 s against 2 s segments: the remux cuts at 3.2, 4.8, 6.4 — not every 2 s.
    const clip = await makeClip({ width: 320, height: 180, seconds: 8, gop: 40, out: join(dir, "src.mp4") });
    await runFfmpeg(tools, remuxHlsArgs(clip, join(dir, "remux"), { segmentS: 2, hasAudio: true }));
    const remuxed = extinf(join(dir, "remux", "index.m3u8"));
    const kf = await keyframeTimes(tools, clip);
    expect(kf.slice(0, 3)).toEqual([0, 1.6, 3.2]);
    const lower = ladderFor({ width: 320, height: 180 });
    const opts = { hasAudio: true, frameRate: 25, segmentS: 2, preset: "ultrafast" as const };
    await runFfmpeg(tools, hlsLadderArgs(clip, lower, join(dir, "aligned"), { ...opts, keyframeTimes: kf }));
    await runFfmpeg(tools, hlsLadderArgs(clip, lower, join(dir, "plain"), opts));
    expect(extinf(join(dir, "aligned", "240p", "index.m3u8"))).toEqual(remuxed);
    expect(extinf(join(dir, "plain", "240p", "index.m3u8"))).not.toEqual(remuxed);
  }, T);

  test("a watermark is burned in where the overlay puts it", async () => {
    const dir = tmp();
    const clip = await makeClip({ width: 320, height: 180, seconds: 1, audio: false, out: join(dir, "src.mp4") });
    const wm = join(dir, "wm.png");
    await runFfmpeg(tools, ["-f", "lavfi", "-i", "color=c=red:s=16x16", "-frames:v", "1", wm]);
    const watermark = watermarkInput(wm, { top: "10px", right: "10px", width: "32px" }, { width: 320, height: 180 });
    const opts = { hasAudio: false, frameRate: 25, segmentS: 1, preset: "ultrafast" as const, watermarks: [watermark] };
    await runFfmpeg(tools, hlsLadderArgs(clip, ladderFor({ width: 320, height: 180 }), join(dir, "hls"), opts));
    // The 32x32 square spans x 278–309, y 10–41: sample its centre as RGB.
    const raw = join(dir, "pixel.rgb");
    await runFfmpeg(tools, ["-i", join(dir, "hls", "240p", "seg_00000.ts"), "-frames:v", "1", "-vf", "crop=2:2:293:25", "-f", "rawvideo", "-pix_fmt", "rgb24", raw]);
    const [r, g, b] = readFileSync(raw);
    expect(r).toBeGreaterThan(180);
    expect(Math.max(g, b)).toBeLessThan(80);
  }, T);
});

describe("running ffmpeg", () => {
  test("a failure carries ffmpeg's cause without the server's directories", async () => {
    const missing = join(tmp(), "nope.mp4");
    const err = await runFfmpeg(tools, ["-i", missing, "-f", "null", "-"]).catch((e) => e);
    expect(err).toBeInstanceOf(MediaError);
    expect(err.reason).toBe("ffmpeg failed: nope.mp4: No such file or directory");
  }, T);

  test("progress is reported and abort kills the process", async () => {
    const controller = new AbortController();
    const seen: number[] = [];
    const started = performance.now();
    const run = runFfmpeg(tools, ["-f", "lavfi", "-i", "testsrc2=size=640x360:duration=3600", "-c:v", "libx264", "-preset", "ultrafast", "-f", "null", "-"], {
      signal: controller.signal,
      onProgress: (s) => {
        seen.push(s);
        controller.abort(new Error("stop"));
      },
    });
    await expect(run).rejects.toThrow("stop");
    expect(seen.length).toBeGreaterThan(0);
    expect(performance.now() - started).toBeLessThan(20_000);
  }, T);

  test("reports the tool versions", async () => {
    expect(await mediaToolsVersion(tools)).toMatch(/^ffmpeg version /);
    expect(existsSync(tools.ffprobe)).toBe(true);
  }, T);
});
