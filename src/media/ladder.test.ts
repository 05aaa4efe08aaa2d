import { describe, expect, test } from "bun:test";
import { isRemuxable, ladderFor, qualityNames } from "./ladder";
import type { ProbeResult } from "./probe-parse";

const sizes = (p: Parameters<typeof ladderFor>[0]) => ladderFor(p).map((r) => `${r.name} ${r.width}x${r.height}`);

describe("ladderFor", () => {
  test("720p source: 240p to 720p, 16:9 kept, even sizes", () => {
    expect(sizes({ width: 1280, height: 720 })).toEqual(["240p 426x240", "360p 640x360", "480p 854x480", "720p 1280x720"]);
  });

  test("bitrates follow the encoder guide; audio 64 / 128 / 192", () => {
    expect(ladderFor({ width: 3840, height: 2160 }).map((r) => [r.name, r.videoKbps, r.maxrateKbps, r.bufsizeKbps, r.audioKbps])).toEqual([
      ["240p", 400, 440, 800, 64],
      ["360p", 800, 880, 1600, 128],
      ["480p", 1200, 1320, 2400, 128],
      ["720p", 2800, 3080, 5600, 128],
      ["1080p", 5000, 5500, 10000, 128],
      ["2160p", 16000, 17600, 32000, 192],
    ]);
  });

  test("above 30 fps, 1.5× the bitrate", () => {
    expect(ladderFor({ width: 1920, height: 1080, frameRate: 60 }).at(-1)).toMatchObject({ name: "1080p", videoKbps: 7500, maxrateKbps: 8250 });
    expect(ladderFor({ width: 1920, height: 1080, frameRate: 30 }).at(-1)).toMatchObject({ videoKbps: 5000 });
  });

  test("portrait: rungs apply to the width", () => {
    expect(sizes({ width: 1080, height: 1920 })).toEqual(["240p 240x426", "360p 360x640", "480p 480x854", "720p 720x1280", "1080p 1080x1920"]);
  });

  test("between rungs: up to the highest rung the source reaches, never upscaled", () => {
    expect(sizes({ width: 1067, height: 600 })).toEqual(["240p 426x240", "360p 640x360", "480p 854x480"]);
  });

  test("a hair under a rung (1920x1072) still gets it, at its own size", () => {
    expect(sizes({ width: 1920, height: 1072 }).at(-1)).toBe("1080p 1920x1072");
  });

  test("larger than 4K stops at 2160p", () => {
    expect(sizes({ width: 7680, height: 4320 }).at(-1)).toBe("2160p 3840x2160");
  });

  test("under 240p: one 240p rendition at the source's own (evened) size", () => {
    expect(sizes({ width: 160, height: 90 })).toEqual(["240p 160x90"]);
    expect(sizes({ width: 101, height: 57 })).toEqual(["240p 100x56"]);
    expect(sizes({ width: 90, height: 160 })).toEqual(["240p 90x160"]);
  });

  test("quality names in ladder order", () => {
    expect([...qualityNames]).toEqual(["240p", "360p", "480p", "720p", "1080p", "2160p"]);
  });
});

describe("isRemuxable", () => {
  const src: ProbeResult = {
    durationS: 10, width: 1920, height: 1080, rotation: 0, videoCodec: "h264", pixelFormat: "yuv420p", frameRate: 30,
    bitrateKbps: 8000, audioCodec: "aac", sampleRate: 48000, hasAudio: true, formatName: "mov,mp4,m4a,3gp,3g2,mj2", sizeBytes: 1e7,
  };
  const top = ladderFor(src).at(-1)!;

  test("an H.264/AAC source at the rung's size and a sane bitrate", () => {
    expect(isRemuxable(src, top)).toBe(true);
    expect(isRemuxable({ ...src, pixelFormat: "yuvj420p", hasAudio: false, audioCodec: null }, top)).toBe(true);
  });

  test.each([
    ["HEVC", { videoCodec: "hevc" }],
    ["10-bit", { pixelFormat: "yuv420p10le" }],
    ["4:2:2", { pixelFormat: "yuv422p" }],
    ["over 60 fps", { frameRate: 120 }],
    ["unknown frame rate", { frameRate: 0 }],
    ["rotated", { rotation: 90 }],
    ["too many bits for its rung", { bitrateKbps: 12000 }],
    ["unknown bitrate", { bitrateKbps: null }],
    ["MP3 audio", { audioCodec: "mp3" }],
    ["not the rung's size", { width: 1920, height: 1072 }],
  ] as [string, Partial<ProbeResult>][])("not when %s", (_, change) => {
    expect(isRemuxable({ ...src, ...change }, top)).toBe(false);
  });

  test("the below-240 case remuxes when its size is already even", () => {
    const tiny = { ...src, width: 160, height: 90, bitrateKbps: 300 };
    expect(isRemuxable(tiny, ladderFor(tiny)[0])).toBe(true);
    const odd = { ...tiny, width: 161 };
    expect(isRemuxable(odd, ladderFor(odd)[0])).toBe(false);
  });
});
