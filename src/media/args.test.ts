import { describe, expect, test } from "bun:test";
import { keyframeProbeArgs, mp4FromHlsArgs, probeArgs, remuxHlsArgs, renditionPaths, thumbnailArgs, thumbnailTime } from "./args";

// A user's source: a local file, read only as a plain container.
const SOURCE_ONLY = ["-protocol_whitelist", "file", "-format_whitelist", "mov,mp4,m4a,3gp,3g2,mj2,matroska,webm,mpegts,avi,flv,mpeg,ogg,asf,mxf,dv,gif"];

describe("golden argument arrays", () => {
  test("probeArgs", () => {
    expect(probeArgs("/m/src")).toEqual(["-v", "error", ...SOURCE_ONLY, "-print_format", "json", "-show_format", "-show_streams", "/m/src"]);
  });

  test("remuxHlsArgs with audio", () => {
    expect(remuxHlsArgs("/m/src", "/m/hls/1080p", { segmentS: 6, hasAudio: true })).toEqual([
      ...SOURCE_ONLY,
      "-i", "/m/src",
      "-map", "0:v:0",
      "-map", "0:a:0",
      "-map_metadata", "-1", "-map_chapters", "-1",
      "-c", "copy",
      "-f", "hls",
      "-hls_time", "6",
      "-hls_playlist_type", "vod",
      "-hls_flags", "independent_segments",
      "-hls_segment_filename", "/m/hls/%v/seg_%05d.ts",
      "-var_stream_map", "v:0,a:0,name:1080p",
      "/m/hls/%v/index.m3u8",
    ]);
  });

  test("remuxHlsArgs silent, with the sandbox limit", () => {
    expect(remuxHlsArgs("/m/src", "/m/hls/720p/", { segmentS: 4, hasAudio: false, limitS: 30 })).toEqual([
      ...SOURCE_ONLY,
      "-i", "/m/src",
      "-map", "0:v:0",
      "-map_metadata", "-1", "-map_chapters", "-1",
      "-t", "30",
      "-c", "copy",
      "-f", "hls",
      "-hls_time", "4",
      "-hls_playlist_type", "vod",
      "-hls_flags", "independent_segments",
      "-hls_segment_filename", "/m/hls/%v/seg_%05d.ts",
      "-var_stream_map", "v:0,name:720p",
      "/m/hls/%v/index.m3u8",
    ]);
  });

  test("mp4FromHlsArgs", () => {
    expect(mp4FromHlsArgs("/m/hls/720p/index.m3u8", "/m/mp4/source.mp4")).toEqual([
      "-i", "/m/hls/720p/index.m3u8",
      "-map", "0:v:0",
      "-map", "0:a:0?",
      "-c", "copy",
      "-bsf:a", "aac_adtstoasc",
      "-movflags", "+faststart",
      "/m/mp4/source.mp4",
    ]);
  });

  test("thumbnailArgs, full size and scaled", () => {
    const tail = ["-q:v", "3", "-f", "image2", "-update", "1", "/m/thumb.jpg"];
    expect(thumbnailArgs("/m/src", 1.25, "/m/thumb.jpg")).toEqual(["-ss", "1.25", ...SOURCE_ONLY, "-i", "/m/src", "-map", "0:v:0", "-frames:v", "1", ...tail]);
    expect(thumbnailArgs("/m/src", 0, "/m/thumb.jpg", { width: 320 })).toEqual([
      "-ss", "0", ...SOURCE_ONLY, "-i", "/m/src", "-map", "0:v:0", "-frames:v", "1", "-vf", "scale=320:-2", ...tail,
    ]);
  });

  test("keyframeProbeArgs", () => {
    expect(keyframeProbeArgs("/m/src")).toEqual([
      "-v", "error", ...SOURCE_ONLY, "-select_streams", "v:0", "-show_entries", "packet=pts_time,flags:format=start_time", "-of", "csv=p=0", "/m/src",
    ]);
  });

  test("renditionPaths matches the ladder's layout", () => {
    expect(renditionPaths("/m/hls", "720p")).toEqual({ dir: "/m/hls/720p", playlist: "/m/hls/720p/index.m3u8", firstSegment: "/m/hls/720p/seg_00000.ts" });
  });
});

describe("thumbnailTime", () => {
  test.each([
    // [duration, requested, expected]
    [60, undefined, 6], // 10 % in
    [5, undefined, 1], // at least 1 s
    [1, undefined, 0.5], // short clips: the middle
    [0, undefined, 0],
    [60, 12.5, 12.5], // requested and inside
    [60, 75, 0], // out of range → 0 (reference §8.3)
    [60, -1, 0],
  ] as [number, number | undefined, number][])("duration %p, requested %p → %p", (d, r, want) => {
    expect(thumbnailTime(d, r)).toBeCloseTo(want, 6);
  });
});
