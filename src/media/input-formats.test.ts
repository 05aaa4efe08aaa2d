import { describe, expect, test } from "bun:test";
import { refusedFormat, unlistedFormat, userFileInput, whitelistRefusal, SOURCE_DEMUXERS, IMAGE_DEMUXERS } from "./input-formats";

describe("input formats", () => {
  test("a user's file: local files only, then the listed demuxers", () => {
    expect(userFileInput(SOURCE_DEMUXERS)).toEqual([
      "-protocol_whitelist", "file",
      "-format_whitelist", "mov,mp4,m4a,3gp,3g2,mj2,matroska,webm,mpegts,avi,flv,mpeg,ogg,asf,mxf,dv,gif",
    ]);
    expect(userFileInput(IMAGE_DEMUXERS)).toEqual(["-protocol_whitelist", "file", "-format_whitelist", "png_pipe,jpeg_pipe"]);
  });

  test.each(["hls", "applehttp", "dash", "concat", "sdp", "rtsp", "imf", "webm_dash_manifest", "lavfi"])("%s is a playlist", (name) => {
    expect(refusedFormat(name)).toBe(`The file is a playlist, not a video: its format (${name}) refers to other files.`);
  });

  test("plain containers are neither refused nor unlisted; images and audio-only formats are", () => {
    for (const name of ["mov,mp4,m4a,3gp,3g2,mj2", "matroska,webm", "mpegts", "avi", "flv", "mpeg", "ogg", "asf", "mxf", "dv"]) {
      expect([refusedFormat(name), unlistedFormat(name)]).toEqual([null, null]);
    }
    expect(refusedFormat("png_pipe")).toBe("The file is not a video: it is a still image");
    expect(refusedFormat("image2")).toBe("The file is not a video: it is a still image");
    expect(refusedFormat("wav")).toBeNull();
    expect(unlistedFormat("wav")).toMatch(/^The file is not a video Vidhost accepts: its format \(wav\) is not MP4\/MOV, /);
    expect(unlistedFormat("")).toMatch(/its format \(unknown\)/);
  });

  test("a whitelist refusal in stderr names the demuxer it refused", () => {
    const stderr = (name: string) => `[${name} @ 0x55fdaf6f9280] Format not on whitelist 'mov,matroska'\nsource: Invalid argument\n`;
    expect(whitelistRefusal(stderr("hls"))).toBe("The file is a playlist, not a video: its format (hls) refers to other files.");
    expect(whitelistRefusal(stderr("dash"))).toMatch(/^The file is a playlist, not a video/);
    expect(whitelistRefusal(stderr("jpeg_pipe"))).toBe("The file is not a video: it is a still image");
    expect(whitelistRefusal(stderr("mp3"))).toMatch(/^The file is not a video Vidhost accepts: its format \(mp3\)/);
    expect(whitelistRefusal("source: Invalid data found when processing input\n")).toBeNull();
  });
});
