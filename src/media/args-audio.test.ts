import { describe, expect, test } from "bun:test";
import { speechAudioArgs } from "./args-audio";

// A user's source: a local file, read only as a plain container.
const SOURCE_ONLY = ["-protocol_whitelist", "file", "-format_whitelist", "mov,mp4,m4a,3gp,3g2,mj2,matroska,webm,mpegts,avi,flv,mpeg,ogg,asf,mxf,dv,gif"];

describe("speechAudioArgs", () => {
  test("golden: the first audio track as 16 kHz mono 16-bit WAV", () => {
    expect(speechAudioArgs("/m/source", "/m/speech/a.wav")).toEqual([
      ...SOURCE_ONLY,
      "-i", "/m/source",
      "-map", "0:a:0",
      "-vn",
      "-map_metadata", "-1",
      "-ac", "1",
      "-ar", "16000",
      "-c:a", "pcm_s16le",
      "-f", "wav",
      "/m/speech/a.wav",
    ]);
  });

  test("golden: cut to the delivered length", () => {
    expect(speechAudioArgs("/m/source", "/m/a.wav", { limitS: 30 })).toEqual([
      ...SOURCE_ONLY,
      "-i", "/m/source",
      "-map", "0:a:0",
      "-vn",
      "-map_metadata", "-1",
      "-t", "30",
      "-ac", "1",
      "-ar", "16000",
      "-c:a", "pcm_s16le",
      "-f", "wav",
      "/m/a.wav",
    ]);
  });

  test("golden: a clip's window", () => {
    expect(speechAudioArgs("/m/source", "/m/a.wav", { startS: 2.5, limitS: 4 }).slice(0, 15)).toEqual([
      "-ss", "2.5", ...SOURCE_ONLY, "-i", "/m/source", "-map", "0:a:0", "-vn", "-map_metadata", "-1", "-t", "4",
    ]);
  });
});
