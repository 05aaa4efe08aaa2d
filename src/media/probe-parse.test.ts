import { describe, expect, test } from "bun:test";
import { aspectRatio } from "./aspect";
import { MediaError } from "./media-error";
import { parseProbe } from "./probe-parse";

const video = { codec_type: "video", codec_name: "h264", width: 1920, height: 1080, pix_fmt: "yuv420p", avg_frame_rate: "30000/1001", bit_rate: "4500000" };
const audio = { codec_type: "audio", codec_name: "aac", sample_rate: "44100" };
const format = { format_name: "mov,mp4,m4a,3gp,3g2,mj2", duration: "12.345", size: "7000000", bit_rate: "4600000" };

const reason = (raw: Parameters<typeof parseProbe>[0]) => {
  try {
    parseProbe(raw);
  } catch (err) {
    return err instanceof MediaError ? err.reason : "not a MediaError";
  }
  return "no error";
};

describe("parseProbe", () => {
  test("the facts of an ordinary file", () => {
    expect(parseProbe({ streams: [video, audio], format })).toEqual({
      durationS: 12.345, width: 1920, height: 1080, rotation: 0, videoCodec: "h264", pixelFormat: "yuv420p", frameRate: 29.97,
      bitrateKbps: 4500, audioCodec: "aac", sampleRate: 44100, hasAudio: true, formatName: "mov,mp4,m4a,3gp,3g2,mj2", sizeBytes: 7000000,
    });
  });

  test("a phone's display matrix (-90) makes it portrait, rotated 90° clockwise", () => {
    const p = parseProbe({ streams: [{ ...video, side_data_list: [{ rotation: -90 }] }], format });
    expect([p.width, p.height, p.rotation]).toEqual([1080, 1920, 90]);
  });

  test("an old-style rotate tag counts too; 180 keeps the size", () => {
    expect(parseProbe({ streams: [{ ...video, tags: { rotate: "270" } }], format })).toMatchObject({ width: 1080, height: 1920, rotation: 270 });
    expect(parseProbe({ streams: [{ ...video, side_data_list: [{ rotation: 180 }] }], format })).toMatchObject({ width: 1920, height: 1080, rotation: 180 });
  });

  test("non-square pixels: the display width", () => {
    const dvd = { ...video, width: 720, height: 480, sample_aspect_ratio: "32:27" };
    expect(parseProbe({ streams: [dvd], format })).toMatchObject({ width: 853, height: 480 });
  });

  test("bitrate falls back to the container's, then size over duration; frame rate to r_frame_rate", () => {
    const bare = { ...video, bit_rate: undefined, avg_frame_rate: "0/0", r_frame_rate: "25/1" };
    expect(parseProbe({ streams: [bare], format })).toMatchObject({ bitrateKbps: 4600, frameRate: 25, hasAudio: false, audioCodec: null, sampleRate: null });
    expect(parseProbe({ streams: [bare], format: { ...format, bit_rate: undefined } }).bitrateKbps).toBe(4536); // 7 MB × 8 / 12.345 s
    expect(parseProbe({ streams: [bare], format: { format_name: "matroska,webm" } })).toMatchObject({ bitrateKbps: null, durationS: 0, sizeBytes: 0 });
  });

  test("no video stream, or only cover art, is not a video", () => {
    expect(reason({ streams: [audio], format })).toBe("The file is not a video: no video stream found");
    const cover = { ...video, codec_name: "mjpeg", disposition: { attached_pic: 1 } };
    expect(reason({ streams: [audio, cover], format: { ...format, format_name: "mp3" } })).toBe("The file is not a video: no video stream found");
    expect(reason({})).toBe("The file is not a video: no video stream found");
  });

  test("a still image is not a video", () => {
    const jpeg = { ...video, codec_name: "mjpeg" };
    expect(reason({ streams: [jpeg], format: { format_name: "image2" } })).toBe("The file is not a video: it is a still image");
    expect(reason({ streams: [jpeg], format: { format_name: "png_pipe" } })).toBe("The file is not a video: it is a still image");
  });

  test("a playlist or manifest is refused even though it found a video: what it plays is not the upload", () => {
    for (const name of ["hls", "dash", "concat", "sdp", "imf"]) {
      expect(reason({ streams: [video, audio], format: { ...format, format_name: name } })).toBe(`The file is a playlist, not a video: its format (${name}) refers to other files.`);
    }
    // Refused before "no video stream": a playlist of audio is still a playlist.
    expect(reason({ streams: [audio], format: { format_name: "hls" } })).toMatch(/^The file is a playlist, not a video/);
  });

  test("a container outside the accepted ones is refused by name", () => {
    expect(reason({ streams: [video], format: { format_name: "nut" } })).toMatch(/^The file is not a video Vidhost accepts: its format \(nut\)/);
    expect(reason({ streams: [video], format: { format_name: "mpegts" } })).toBe("no error");
  });
});

describe("aspectRatio", () => {
  test.each([
    [1920, 1080, "16:9"],
    [854, 480, "16:9"],
    [426, 240, "16:9"],
    [1080, 1920, "9:16"],
    [640, 480, "4:3"],
    [720, 480, "3:2"],
    [1000, 1000, "1:1"],
    [2560, 1080, "21:9"],
    [1920, 800, "12:5"],
    [1919, 1000, "1.92:1"],
    [1000, 1919, "1:1.92"],
    [0, 1080, ""],
  ])("%p x %p → %p", (w, h, want) => {
    expect(aspectRatio(w, h)).toBe(want);
  });
});
