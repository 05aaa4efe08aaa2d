// Pure builders of the ffmpeg argument arrays live streaming runs: the per-broadcast ingest (live
// HLS + recording + picture), restream relays, and the concatenation of a recording's pieces.
import { join } from "node:path";
import { secs } from "./args-ladder";
import type { Rendition } from "./ladder";

/** A transcoded live rendition beside the source copy. */
export type LiveRung = Pick<Rendition, "name" | "width" | "height" | "videoKbps" | "maxrateKbps" | "bufsizeKbps" | "audioKbps">;

/** What one ingest run reads and writes. */
export interface LiveIngestOptions {
  /** copy: the broadcaster sends H.264 (served as is); encode: anything else, made H.264 here. */
  video: "copy" | "encode";
  /** copy: AAC; encode: another codec (MP3…), made AAC; none: a silent broadcast. */
  audio: "copy" | "encode" | "none";
  /** Holds one directory per rendition (`source`, then the rungs): index.m3u8 + seg_NNNNN.ts. */
  hlsDir: string;
  /** Target segment length; with a stream copy segments are cut at the broadcaster's keyframes. */
  segmentS: number;
  /** Segments kept in the playlist (the sliding window). */
  listSize: number;
  /** First segment number: a run continuing a broadcast goes on from the previous run's numbering. */
  startNumber: number;
  /** A continuation after a reconnect: the playlist starts with EXT-X-DISCONTINUITY. */
  discontinuity: boolean;
  /** Transcoded renditions added beside the source (VIDHOST_LIVE_LADDER), lowest first. */
  rungs: LiveRung[];
  /** Frame rate the broadcaster announced (0 when unknown), for the encoders' GOP. */
  frameRate: number;
  /**
   * The recording piece, a stream copy: MPEG-TS (readable up to its last packet whatever happens)
   * for H.264 with AAC or MP3, Matroska for anything else (MPEG-TS would keep, say, FLV1 video or
   * G.711 audio only as opaque data).
   */
  recording?: { file: string; format: "mpegts" | "matroska"; limitS?: number };
  /** A JPEG of the live picture, rewritten every `everyS` seconds. */
  picture?: { file: string; everyS: number; width: number };
}

/**
 * ffmpeg arguments for one broadcast's ingest: reads the RTMP stream (`input`) and writes the live
 * HLS (the source as `source`, stream-copied when it is H.264/AAC, plus any transcoded rungs), the
 * recording piece and the live picture, all from one process so the stream is read once.
 */
export function liveIngestArgs(input: string, o: LiveIngestOptions): string[] {
  const decodes = o.video === "encode" || o.rungs.length > 0;
  const audio = o.audio !== "none";
  const args: string[] = [];
  if (!decodes) {
    // Nothing to decode but the picture: the codec headers NMS replays on connect are all a copy
    // needs, so probing stops at once (measured: first playlist ~1.0 s after the first frame
    // instead of 1.3–2.1 s, and EXT-X-PROGRAM-DATE-TIME ~0.4 s after it instead of 1.3–2.1 s).
    args.push("-probesize", "32", "-analyzeduration", "0", "-fpsprobesize", "0");
    // Keyframes are enough for the picture.
    if (o.picture) args.push("-skip_frame", "nokey");
  }
  // No -fflags nobuffer: it drops what ffmpeg reads while probing, the first seconds of the recording.
  args.push("-i", input);

  // Output 1: the live HLS, every rendition in one muxer.
  const names = ["source", ...o.rungs.map((r) => r.name)];
  names.forEach(() => {
    args.push("-map", "0:v:0"); // one video stream per rendition
    if (audio) args.push("-map", "0:a:0"); // and the audio beside it
  });
  args.push("-map_metadata", "-1"); // the broadcaster's tags (encoder names) stay private
  if (o.video === "copy") args.push("-c:v:0", "copy"); // H.264 as sent: no decode, no delay
  else args.push("-c:v:0", "libx264", "-preset:v:0", "veryfast", "-tune:v:0", "zerolatency", "-pix_fmt:v:0", "yuv420p"); // made playable
  o.rungs.forEach((r, i) => {
    const s = `v:${i + 1}`;
    args.push(
      `-c:${s}`, "libx264",
      `-preset:${s}`, "veryfast", // real time on a small machine
      `-tune:${s}`, "zerolatency", // no lookahead or B-frame delay
      `-filter:${s}`, `scale=${r.width}:${r.height},setsar=1`, // this rung's size
      `-pix_fmt:${s}`, "yuv420p", // 8-bit 4:2:0 for every decoder
      `-b:${s}`, `${r.videoKbps}k`, // average rate of the rung
      `-maxrate:${s}`, `${r.maxrateKbps}k`, // peak the master playlist promises
      `-bufsize:${s}`, `${r.bufsizeKbps}k`, // VBV window
    );
  });
  if (decodes) {
    args.push(
      "-force_key_frames", "source", // keyframes where the broadcaster has them: every rendition cuts at the same instants
      "-g", String(Math.ceil(Math.max(o.segmentS, 2) * (o.frameRate > 0 ? Math.min(o.frameRate, 60) : 30))), // and at least every segment or two seconds
      "-sc_threshold", "0", // no scene-cut keyframes of x264's own
    );
  }
  if (audio) {
    // AAC is copied into every rendition; anything else is made AAC once per rendition.
    if (o.audio === "copy") args.push("-c:a", "copy");
    else args.push("-c:a", "aac", "-b:a", "128k", "-ac", "2");
  }
  const flags = ["delete_segments", "program_date_time", "omit_endlist", "independent_segments", "temp_file"];
  if (o.discontinuity) flags.push("discont_start");
  args.push(
    "-f", "hls",
    "-hls_time", secs(o.segmentS), // short segments: the first is playable a segment after the first frame
    "-hls_list_size", String(o.listSize), // the sliding window
    "-hls_delete_threshold", String(o.listSize), // segments that left the window stay a while for slow players
    "-start_number", String(o.startNumber), // segment numbers and EXT-X-MEDIA-SEQUENCE go on across runs
    // delete_segments: disk stays flat; program_date_time: EXT-X-PROGRAM-DATE-TIME on every segment;
    // omit_endlist: the server adds ENDLIST when the broadcast completes, not when one run ends;
    // independent_segments: each segment starts on a keyframe; temp_file: files appear whole;
    // discont_start: a reconnect's timestamps restart, and players are told so.
    "-hls_flags", flags.join("+"),
    "-hls_segment_filename", join(o.hlsDir, "%v", "seg_%05d.ts"),
    "-var_stream_map", names.map((name, i) => (audio ? `v:${i},a:${i},name:${name}` : `v:${i},name:${name}`)).join(" "),
    join(o.hlsDir, "%v", "index.m3u8"),
  );

  // Output 2: the recording, a stream copy of what the broadcaster sent.
  if (o.recording) {
    args.push("-map", "0:v:0");
    if (audio) args.push("-map", "0:a:0");
    args.push("-map_metadata", "-1", "-c", "copy");
    if (o.recording.limitS !== undefined) args.push("-t", secs(o.recording.limitS)); // the sandbox's 30 s cap
    args.push("-f", o.recording.format, o.recording.file); // see LiveIngestOptions.recording
  }

  // Output 3: the live picture for the thumbnail.
  if (o.picture) {
    args.push(
      "-map", "0:v:0",
      "-vf", `fps=1/${secs(o.picture.everyS)},scale=${o.picture.width}:-2`, // one frame every few seconds, small
      "-q:v", "4", // JPEG quality (2 best, 31 worst)
      "-f", "image2",
      "-update", "1", // one file, rewritten
      "-atomic_writing", "1", // via a temporary file and rename: readers never see half a picture
      o.picture.file,
    );
  }
  return args;
}

/** How long a restream destination may leave a relay's reads or writes waiting. */
export const RESTREAM_STALL_S = 10;

/** ffmpeg arguments relaying the live stream (`input`) untouched to another RTMP(S) server. */
export function restreamArgs(input: string, destination: string): string[] {
  return [
    "-i", input,
    "-map", "0:v?", // the video, when there is some
    "-map", "0:a?", // the audio, when there is some
    "-map_metadata", "-1", // nothing of ours leaks to the destination
    "-c", "copy", // a relay costs no encoding and adds no delay
    "-flvflags", "no_duration_filesize", // live: no trailer seek back to patch the header
    // A destination that stops answering (handshake or writes) fails the relay, which is retried,
    // instead of holding it and its process for ever: 10 s, in microseconds.
    "-rw_timeout", String(RESTREAM_STALL_S * 1_000_000),
    "-f", "flv", // RTMP carries FLV
    destination,
  ];
}

/** The destination URL of a restream: the server URL with the stream key as the last path element. */
export function restreamUrl(serverUrl: string, streamKey: string): string {
  return `${serverUrl.replace(/\/+$/, "")}/${streamKey}`;
}

/** The concat demuxer's list of `files` (absolute paths), quoted as ffmpeg reads them. */
export function concatList(files: string[]): string {
  return files.map((f) => `file '${f.replace(/'/g, "'\\''")}'\n`).join("");
}

/**
 * ffmpeg arguments joining a recording's pieces (`list`, see concatList) into one file without
 * re-encoding: MP4 for MPEG-TS pieces (H.264 with AAC or MP3), Matroska for the rest.
 */
export function recordingConcatArgs(list: string, output: string, format: "mp4" | "matroska" = "mp4"): string[] {
  return [
    "-f", "concat", // pieces one after the other, timestamps made continuous
    "-safe", "0", // the list holds absolute paths (made by the storage module)
    "-i", list,
    "-map", "0:v?", // the video
    "-map", "0:a?", // the audio (a silent broadcast has none)
    "-c", "copy", // a disk-speed copy: the encode job does the real work
    ...(format === "mp4" ? ["-movflags", "+faststart"] : []), // index at the front (the MP4 muxer adds the AAC bitstream filter itself)
    "-f", format, // the video's source key has no extension
    output,
  ];
}

/**
 * The number the next ingest run's first segment takes: after every segment an earlier run listed
 * (EXT-X-MEDIA-SEQUENCE plus the entries), 0 without a playlist.
 */
export function nextSegmentNumber(playlist: string | null): number {
  if (!playlist) return 0;
  const sequence = Number(/#EXT-X-MEDIA-SEQUENCE:(\d+)/.exec(playlist)?.[1] ?? 0);
  const entries = playlist.split("\n").filter((l) => l.startsWith("#EXTINF")).length;
  return sequence + entries;
}
