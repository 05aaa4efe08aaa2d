// Real ffmpeg: a playlist uploaded as a source (or as a watermark) opens nothing it names, through
// every argument builder that reads a user's file; plain containers still read.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { ffprobeJson, mediaTempDir, testMediaTools } from "../../test/fixtures/media";
import { dashManifest, hlsPlaylist, makeContainerClip, writeText, type Container } from "../../test/fixtures/source-formats";
import { hlsLadderArgs, remuxHlsArgs, thumbnailArgs } from "./args";
import { speechAudioArgs } from "./args-audio";
import { imageCheckArgs } from "./args-image";
import { keyframeTimes, MediaError, probe, runFfmpeg } from "./ffmpeg";
import { ladderFor } from "./ladder";

const tools = testMediaTools();
const T = 60_000;
const PLAYLIST = /^The file is a playlist, not a video: its format \((hls|dash)\) refers to other files\.$/;

let secretDir: string; // another place on the host, holding media the upload must not reach
let uploadDir: string;
let secretTs: string;
let secretMp4: string;
let playlists: Record<string, string>;

beforeAll(async () => {
  [secretDir, uploadDir] = [mediaTempDir(), mediaTempDir()];
  [secretTs, secretMp4] = await Promise.all([makeContainerClip("ts", { dir: secretDir }), makeContainerClip("mp4", { dir: secretDir })]);
  // The relative form of the review's repro: up from the upload's folder, into another one.
  mkdirSync(join(uploadDir, "videos", "vi2"), { recursive: true });
  const relative = join("..", "..", "..", secretDir.split("/").pop()!, "clip.ts");
  playlists = {
    "HLS, absolute": writeText(hlsPlaylist(secretTs), "source", join(uploadDir)),
    "HLS, relative": writeText(hlsPlaylist(relative), "source", join(uploadDir, "videos", "vi2")),
    "DASH": writeText(dashManifest(secretMp4, { width: 160, height: 120 }), "dash-source", uploadDir),
  };
}, T);
afterAll(() => [secretDir, uploadDir].forEach((d) => rmSync(d, { recursive: true, force: true })));

describe("a playlist as a source", () => {
  test("unrestricted, ffprobe would play what each names: the files are real attacks", async () => {
    for (const file of Object.values(playlists)) {
      const raw = await ffprobeJson(file);
      expect(["hls", "dash"]).toContain(raw.format.format_name);
      expect(raw.streams.some((s) => s.codec_type === "video")).toBe(true);
    }
  }, T);

  test("probe() refuses each with a readable reason and no path", async () => {
    for (const [name, file] of Object.entries(playlists)) {
      const err = await probe(tools, file).catch((e) => e);
      expect(err, name).toBeInstanceOf(MediaError);
      expect(err.reason, name).toMatch(PLAYLIST);
      expect(err.reason).not.toContain("/");
    }
  }, T);

  test("every ffmpeg run on a user's source refuses it too, and writes nothing", async () => {
    const file = playlists["HLS, absolute"];
    const out = mediaTempDir();
    const ladder = ladderFor({ width: 160, height: 120 });
    const runs: [string, string[]][] = [
      ["thumbnail", thumbnailArgs(file, 0, join(out, "t.jpg"))],
      ["speech audio", speechAudioArgs(file, join(out, "a.wav"))],
      ["remux", remuxHlsArgs(file, join(out, "hls", "240p"), { segmentS: 1, hasAudio: true })],
      ["ladder", hlsLadderArgs(file, ladder, join(out, "ladder"), { hasAudio: true, frameRate: 25, segmentS: 1, preset: "ultrafast" })],
    ];
    for (const [name, args] of runs) {
      const err = await runFfmpeg(tools, args).catch((e) => e);
      expect(err, name).toBeInstanceOf(MediaError);
      expect(err.reason, name).toMatch(PLAYLIST);
    }
    const keyframes = await keyframeTimes(tools, file).catch((e) => e);
    expect(keyframes).toBeInstanceOf(MediaError);
    expect(keyframes.reason).toMatch(PLAYLIST);
    expect(readdirSync(out).filter((f) => !["hls", "ladder"].includes(f))).toEqual([]);
    expect(existsSync(join(out, "ladder", "240p", "seg_00000.ts"))).toBe(false);
    rmSync(out, { recursive: true, force: true });
  }, T);

  test("a playlist given as a watermark image is refused at upload and at encode", async () => {
    const fake = writeText(hlsPlaylist(secretTs), "watermark.png", uploadDir);
    const check = await runFfmpeg(tools, imageCheckArgs(fake)).catch((e) => e);
    expect(check).toBeInstanceOf(MediaError);
    expect(check.reason).toMatch(PLAYLIST);
    const out = mediaTempDir();
    const ladder = ladderFor({ width: 160, height: 120 });
    const encode = await runFfmpeg(tools, hlsLadderArgs(secretMp4, ladder, out, {
      hasAudio: true, frameRate: 25, segmentS: 1, preset: "ultrafast", watermarks: [{ file: fake, filter: "overlay=0:0" }],
    })).catch((e) => e);
    expect(encode).toBeInstanceOf(MediaError);
    expect(encode.reason).toMatch(PLAYLIST);
    rmSync(out, { recursive: true, force: true });
  }, T);
});

describe("plain containers", () => {
  test.each(["mp4", "mkv", "webm", "ts", "avi"] as Container[])("%s probes as a video", async (container) => {
    const clip = await makeContainerClip(container);
    const p = await probe(tools, clip);
    expect([p.width, p.height, p.hasAudio]).toEqual([160, 120, true]);
    rmSync(join(clip, ".."), { recursive: true, force: true });
  }, T);

  test("an animated GIF probes as a video (without sound)", async () => {
    const dir = mediaTempDir();
    const gif = join(dir, "clip.gif");
    const made = Bun.spawnSync([tools.ffmpeg, "-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=10:duration=1", gif]);
    expect(made.exitCode).toBe(0);
    const p = await probe(tools, gif);
    expect([p.width, p.height, p.hasAudio]).toEqual([160, 120, false]);
    rmSync(dir, { recursive: true, force: true });
  }, T);
});
