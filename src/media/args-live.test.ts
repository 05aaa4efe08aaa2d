import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { rmSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { join } from "node:path";
import { ffprobeJson, mediaTempDir, testMediaTools } from "../../test/fixtures/media";
import { concatList, liveIngestArgs, nextSegmentNumber, recordingConcatArgs, restreamArgs, restreamUrl, type LiveIngestOptions } from "./args-live";
import { runFfmpeg } from "./ffmpeg";

setDefaultTimeout(30_000);

const IN = "rtmp://127.0.0.1:1935/internal/li1?reader=t";
const base: LiveIngestOptions = {
  video: "copy", audio: "copy", hlsDir: "/m/live/li1/hls/b1", segmentS: 1, listSize: 6, startNumber: 0,
  discontinuity: false, rungs: [], frameRate: 30,
};

describe("golden argument arrays", () => {
  test("liveIngestArgs: H.264/AAC copied, with the recording and the picture", () => {
    expect(liveIngestArgs(IN, { ...base, recording: { file: "/m/rec/p0001.ts", format: "mpegts" }, picture: { file: "/m/live/li1/picture.jpg", everyS: 5, width: 640 } })).toEqual([
      "-probesize", "32", "-analyzeduration", "0", "-fpsprobesize", "0",
      "-skip_frame", "nokey",
      "-i", IN,
      "-map", "0:v:0", "-map", "0:a:0",
      "-map_metadata", "-1",
      "-c:v:0", "copy",
      "-c:a", "copy",
      "-f", "hls",
      "-hls_time", "1",
      "-hls_list_size", "6",
      "-hls_delete_threshold", "6",
      "-start_number", "0",
      "-hls_flags", "delete_segments+program_date_time+omit_endlist+independent_segments+temp_file",
      "-hls_segment_filename", "/m/live/li1/hls/b1/%v/seg_%05d.ts",
      "-var_stream_map", "v:0,a:0,name:source",
      "/m/live/li1/hls/b1/%v/index.m3u8",
      "-map", "0:v:0", "-map", "0:a:0",
      "-map_metadata", "-1", "-c", "copy",
      "-f", "mpegts", "/m/rec/p0001.ts",
      "-map", "0:v:0",
      "-vf", "fps=1/5,scale=640:-2",
      "-q:v", "4",
      "-f", "image2",
      "-update", "1",
      "-atomic_writing", "1",
      "/m/live/li1/picture.jpg",
    ]);
  });

  test("liveIngestArgs: a silent continuation after a reconnect, sandbox-capped recording, no picture", () => {
    expect(liveIngestArgs(IN, { ...base, audio: "none", startNumber: 17, discontinuity: true, segmentS: 2, listSize: 4, recording: { file: "/r.mkv", format: "matroska", limitS: 12.5 } })).toEqual([
      "-probesize", "32", "-analyzeduration", "0", "-fpsprobesize", "0",
      "-i", IN,
      "-map", "0:v:0",
      "-map_metadata", "-1",
      "-c:v:0", "copy",
      "-f", "hls",
      "-hls_time", "2",
      "-hls_list_size", "4",
      "-hls_delete_threshold", "4",
      "-start_number", "17",
      "-hls_flags", "delete_segments+program_date_time+omit_endlist+independent_segments+temp_file+discont_start",
      "-hls_segment_filename", "/m/live/li1/hls/b1/%v/seg_%05d.ts",
      "-var_stream_map", "v:0,name:source",
      "/m/live/li1/hls/b1/%v/index.m3u8",
      "-map", "0:v:0",
      "-map_metadata", "-1", "-c", "copy",
      "-t", "12.5",
      "-f", "matroska", "/r.mkv",
    ]);
  });

  test("liveIngestArgs: non-H.264 video and MP3 audio made H.264/AAC, plus a transcoded rung", () => {
    const rung = { name: "360p" as const, width: 640, height: 360, videoKbps: 800, maxrateKbps: 880, bufsizeKbps: 1600, audioKbps: 128 };
    expect(liveIngestArgs(IN, { ...base, video: "encode", audio: "encode", rungs: [rung], frameRate: 25, picture: { file: "/p.jpg", everyS: 5, width: 320 } })).toEqual([
      "-i", IN,
      "-map", "0:v:0", "-map", "0:a:0",
      "-map", "0:v:0", "-map", "0:a:0",
      "-map_metadata", "-1",
      "-c:v:0", "libx264", "-preset:v:0", "veryfast", "-tune:v:0", "zerolatency", "-pix_fmt:v:0", "yuv420p",
      "-c:v:1", "libx264",
      "-preset:v:1", "veryfast",
      "-tune:v:1", "zerolatency",
      "-filter:v:1", "scale=640:360,setsar=1",
      "-pix_fmt:v:1", "yuv420p",
      "-b:v:1", "800k",
      "-maxrate:v:1", "880k",
      "-bufsize:v:1", "1600k",
      "-force_key_frames", "source",
      "-g", "50",
      "-sc_threshold", "0",
      "-c:a", "aac", "-b:a", "128k", "-ac", "2",
      "-f", "hls",
      "-hls_time", "1",
      "-hls_list_size", "6",
      "-hls_delete_threshold", "6",
      "-start_number", "0",
      "-hls_flags", "delete_segments+program_date_time+omit_endlist+independent_segments+temp_file",
      "-hls_segment_filename", "/m/live/li1/hls/b1/%v/seg_%05d.ts",
      "-var_stream_map", "v:0,a:0,name:source v:1,a:1,name:360p",
      "/m/live/li1/hls/b1/%v/index.m3u8",
      "-map", "0:v:0",
      "-vf", "fps=1/5,scale=320:-2",
      "-q:v", "4",
      "-f", "image2",
      "-update", "1",
      "-atomic_writing", "1",
      "/p.jpg",
    ]);
  });

  test("restreamArgs and restreamUrl", () => {
    expect(restreamArgs(IN, "rtmp://a.example/live/key-1")).toEqual([
      "-i", IN,
      "-map", "0:v?",
      "-map", "0:a?",
      "-map_metadata", "-1",
      "-c", "copy",
      "-flvflags", "no_duration_filesize",
      "-rw_timeout", "10000000",
      "-f", "flv",
      "rtmp://a.example/live/key-1",
    ]);
    expect(restreamUrl("rtmp://a.example/live/", "k")).toBe("rtmp://a.example/live/k");
    expect(restreamUrl("rtmps://b.example:443/app", "x-y")).toBe("rtmps://b.example:443/app/x-y");
  });

  test("recordingConcatArgs and concatList", () => {
    expect(recordingConcatArgs("/m/list.txt", "/m/videos/vi1/source")).toEqual([
      "-f", "concat",
      "-safe", "0",
      "-i", "/m/list.txt",
      "-map", "0:v?",
      "-map", "0:a?",
      "-c", "copy",
      "-movflags", "+faststart",
      "-f", "mp4",
      "/m/videos/vi1/source",
    ]);
    expect(recordingConcatArgs("/m/list.txt", "/m/source", "matroska")).toEqual([
      "-f", "concat", "-safe", "0", "-i", "/m/list.txt", "-map", "0:v?", "-map", "0:a?", "-c", "copy", "-f", "matroska", "/m/source",
    ]);
    expect(concatList(["/a/p0001.ts", "/a/it's.ts"])).toBe("file '/a/p0001.ts'\nfile '/a/it'\\''s.ts'\n");
  });
});

test("nextSegmentNumber continues after what an earlier run listed", () => {
  expect(nextSegmentNumber(null)).toBe(0);
  expect(nextSegmentNumber("#EXTM3U\n#EXT-X-TARGETDURATION:1\n")).toBe(0);
  const playlist = "#EXTM3U\n#EXT-X-MEDIA-SEQUENCE:12\n#EXTINF:1.0,\nseg_00012.ts\n#EXTINF:1.0,\nseg_00013.ts\n#EXTINF:0.9,\nseg_00014.ts\n";
  expect(nextSegmentNumber(playlist)).toBe(15);
});

test("real ffmpeg joins two recording pieces into one MP4 of their summed length", async () => {
  const tools = testMediaTools();
  const dir = mediaTempDir();
  try {
    const pieces = [join(dir, "p0001.ts"), join(dir, "p0002.ts")];
    for (const [i, piece] of pieces.entries()) {
      const proc = Bun.spawn([tools.ffmpeg, "-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i", `testsrc2=size=160x90:rate=25:duration=${i + 1}`,
        "-f", "lavfi", "-i", `sine=duration=${i + 1}`, "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-f", "mpegts", piece]);
      expect(await proc.exited).toBe(0);
    }
    const list = join(dir, "list.txt");
    await Bun.write(list, concatList(pieces));
    const output = join(dir, "source");
    await runFfmpeg(tools, recordingConcatArgs(list, output));
    const probe = await ffprobeJson(output);
    expect(probe.format.format_name).toContain("mp4");
    expect(probe.streams.map((s) => s.codec_name).sort()).toEqual(["aac", "h264"]);
    expect(Number(probe.format.duration)).toBeGreaterThan(2.9);
    expect(Number(probe.format.duration)).toBeLessThan(3.2);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("real ffmpeg: a restream to a server that never answers fails (to be retried) instead of hanging", async () => {
  const tools = testMediaTools();
  const dir = mediaTempDir();
  // Takes the connection, then says nothing: the RTMP handshake waits for an answer.
  const silent = createServer(() => {});
  await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
  try {
    const clip = join(dir, "clip.flv");
    const make = Bun.spawn([tools.ffmpeg, "-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i", "testsrc2=size=160x90:rate=25:duration=1", "-c:v", "libx264", "-preset", "ultrafast", "-f", "flv", clip]);
    expect(await make.exited).toBe(0);
    const port = (silent.address() as AddressInfo).port;
    const relay = runFfmpeg(tools, restreamArgs(clip, `rtmp://127.0.0.1:${port}/live/key`));
    expect(await relay.then(() => "finished", (err: Error) => err.message)).toMatch(/RTMP handshake|timed out/i);
  } finally {
    silent.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
