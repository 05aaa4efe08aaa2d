import { describe, expect, test } from "bun:test";
import { hlsLadderArgs, outputFps, secs } from "./args-ladder";
import { ladderFor } from "./ladder";

// A user's source: a local file, read only as a plain container.
const SOURCE_ONLY = ["-protocol_whitelist", "file", "-format_whitelist", "mov,mp4,m4a,3gp,3g2,mj2,matroska,webm,mpegts,avi,flv,mpeg,ogg,asf,mxf,dv,gif"];
// A user's image: a local file, read only as PNG or JPEG.
const IMAGE_ONLY = ["-protocol_whitelist", "file", "-format_whitelist", "png_pipe,jpeg_pipe"];

const ladder720 = ladderFor({ width: 1280, height: 720 });
const hlsTail = (segment: string, map: string) => [
  "-max_muxing_queue_size", "1024",
  "-f", "hls",
  "-hls_time", segment,
  "-hls_playlist_type", "vod",
  "-hls_flags", "independent_segments",
  "-hls_segment_filename", "/out/%v/seg_%05d.ts",
  "-var_stream_map", map,
  "/out/%v/index.m3u8",
];
const rung240 = ["-profile:v:0", "main", "-b:v:0", "400k", "-maxrate:v:0", "440k", "-bufsize:v:0", "800k"];

describe("hlsLadderArgs", () => {
  test("two rungs with audio: one decode, split, per-rung rate control and AAC", () => {
    expect(hlsLadderArgs("/in.mp4", ladder720.slice(0, 2), "/out", { hasAudio: true, frameRate: 25, segmentS: 4 })).toEqual([
      ...SOURCE_ONLY, "-i", "/in.mp4",
      "-filter_complex", "[0:v]split=2[s0][s1];[s0]scale=426:240,setsar=1[v0];[s1]scale=640:360,setsar=1[v1]",
      "-map", "[v0]", "-map", "0:a:0",
      "-map", "[v1]", "-map", "0:a:0",
      "-map_metadata", "-1", "-map_chapters", "-1",
      "-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p",
      ...rung240,
      "-profile:v:1", "main", "-b:v:1", "800k", "-maxrate:v:1", "880k", "-bufsize:v:1", "1600k",
      "-force_key_frames", "expr:gte(t,n_forced*4)", "-g", "200",
      "-sc_threshold", "0",
      "-c:a", "aac", "-ac", "2", "-b:a:0", "64k", "-b:a:1", "128k",
      ...hlsTail("4", "v:0,a:0,name:240p v:1,a:1,name:360p"),
    ]);
  });

  test("silent 120 fps source, clipped, capped at 30 s, watermarked", () => {
    const args = hlsLadderArgs("/in.mp4", ladder720.slice(0, 1), "/out", {
      hasAudio: false, frameRate: 120, segmentS: 6, limitS: 30, clip: { startS: 1.5, endS: 61.5 }, preset: "ultrafast",
      watermarks: [{ file: "/wm.png", prepare: "scale=64:-1", filter: "overlay=W-w-10:10" }],
    });
    expect(args).toEqual([
      "-ss", "1.5", ...SOURCE_ONLY, "-i", "/in.mp4",
      ...IMAGE_ONLY, "-i", "/wm.png",
      "-filter_complex", "[1:v]scale=64:-1[wm0];[0:v][wm0]overlay=W-w-10:10,fps=60,split=1[s0];[s0]scale=426:240,setsar=1[v0]",
      "-map", "[v0]",
      "-map_metadata", "-1", "-map_chapters", "-1",
      "-t", "30",
      "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p",
      ...rung240,
      "-force_key_frames", "expr:gte(t,n_forced*6)", "-g", "720",
      "-sc_threshold", "0",
      ...hlsTail("6", "v:0,name:240p"),
    ]);
  });

  test("a clip shorter than the limit keeps its own length; no prepare means the image as is", () => {
    const args = hlsLadderArgs("/in.mp4", ladder720.slice(0, 1), "/out", {
      hasAudio: false, frameRate: 30, segmentS: 6, limitS: 30, clip: { startS: 10, endS: 22.25 },
      watermarks: [{ file: "/wm.png", filter: "overlay=0:0" }],
    });
    expect(args.slice(args.indexOf("-t"), args.indexOf("-t") + 2)).toEqual(["-t", "12.25"]);
    expect(args[args.indexOf("-filter_complex") + 1]).toBe("[1:v]null[wm0];[0:v][wm0]overlay=0:0,split=1[s0];[s0]scale=426:240,setsar=1[v0]");
  });

  test("the customer's watermark then the sandbox's, chained at the source's size", () => {
    const args = hlsLadderArgs("/in.mp4", ladder720.slice(0, 2), "/out", {
      hasAudio: false, frameRate: 25, segmentS: 4, clip: { startS: 2, endS: 5 },
      watermarks: [
        { file: "/own.jpg", prepare: "scale=128:-1,format=rgba,colorchannelmixer=aa=0.5", filter: "overlay=10:10" },
        { file: "/sandbox.png", prepare: "scale=256:-1", filter: "overlay=W-w-16:H-h-16" },
      ],
    });
    expect(args.slice(0, args.indexOf("-map"))).toEqual([
      "-ss", "2", ...SOURCE_ONLY, "-i", "/in.mp4",
      ...IMAGE_ONLY, "-i", "/own.jpg",
      ...IMAGE_ONLY, "-i", "/sandbox.png",
      "-filter_complex",
      "[1:v]scale=128:-1,format=rgba,colorchannelmixer=aa=0.5[wm0];[2:v]scale=256:-1[wm1];"
        + "[0:v][wm0]overlay=10:10[o0];[o0][wm1]overlay=W-w-16:H-h-16,split=2[s0][s1];"
        + "[s0]scale=426:240,setsar=1[v0];[s1]scale=640:360,setsar=1[v1]",
    ]);
    expect(args.slice(args.indexOf("-t"), args.indexOf("-t") + 2)).toEqual(["-t", "3"]);
  });

  test("keyframe times force keyframes only where the remux cuts, just before each", () => {
    const args = hlsLadderArgs("/in.mp4", ladder720.slice(0, 1), "/out", {
      hasAudio: false, frameRate: 25, segmentS: 2, keyframeTimes: [0, 1.6, 3.2, 4.8, 6.4, 8, 9.6],
    });
    expect(args.slice(args.indexOf("-force_key_frames"), args.indexOf("-sc_threshold") + 2)).toEqual([
      // cuts at 3.2, 4.8, 6.4, 8 (first keyframe ≥ 2, 4, 6, 8); minus 0.4 frame
      "-force_key_frames", "3.184,4.784,6.384,7.984",
      "-g", "105", // (3.2 s largest gap + 1 s) × 25 fps
      "-sc_threshold", "0",
    ]);
  });

  test("needs a rendition", () => {
    expect(() => hlsLadderArgs("/in.mp4", [], "/out", { hasAudio: false, frameRate: 25, segmentS: 6 })).toThrow();
  });
});

test("secs and outputFps", () => {
  expect([secs(1), secs(1.23456), secs(0.1 + 0.2)]).toEqual(["1", "1.235", "0.3"]);
  expect([outputFps(0), outputFps(29.97), outputFps(120)]).toEqual([30, 29.97, 60]);
});
