// Turns ffprobe's JSON into the few facts encoding and the status object need. Pure, so odd
// files (rotated, anamorphic, audio with cover art) are tested without making them.
import { refusedFormat, unlistedFormat } from "./input-formats";
import { MediaError } from "./media-error";

/** What Vidhost knows about a source after probing it. */
export interface ProbeResult {
  durationS: number;
  /** Display size: rotation and non-square pixels applied, so a portrait phone clip is portrait. */
  width: number;
  height: number;
  /** Clockwise display rotation in degrees (0, 90, 180, 270); MPEG-TS cannot carry it, so a rotated source is never remuxed. */
  rotation: number;
  videoCodec: string;
  pixelFormat: string | null;
  frameRate: number;
  /** The video stream's bitrate, else the container's (which includes audio), else size over duration. */
  bitrateKbps: number | null;
  audioCodec: string | null;
  sampleRate: number | null;
  hasAudio: boolean;
  formatName: string;
  sizeBytes: number;
}

interface RawStream {
  codec_type?: string;
  codec_name?: string;
  width?: number;
  height?: number;
  pix_fmt?: string;
  sample_aspect_ratio?: string;
  avg_frame_rate?: string;
  r_frame_rate?: string;
  bit_rate?: string;
  sample_rate?: string;
  duration?: string;
  disposition?: { attached_pic?: number };
  tags?: Record<string, string>;
  side_data_list?: { rotation?: number }[];
}

interface RawProbe {
  streams?: RawStream[];
  format?: { format_name?: string; duration?: string; size?: string; bit_rate?: string };
}

const num = (v: string | number | undefined): number | null => {
  const n = typeof v === "number" ? v : v === undefined ? NaN : Number(v);
  return Number.isFinite(n) ? n : null;
};

function ratio(v: string | undefined): number | null {
  const [a, b] = (v ?? "").split(/[/:]/).map(Number);
  return b > 0 && a > 0 ? a / b : null;
}

// ffprobe reports rotation as a display-matrix angle (counter-clockwise, e.g. -90) or, from older
// muxers, a `rotate` tag (clockwise); both normalise to 0/90/180/270 clockwise.
function rotationOf(v: RawStream): number {
  const matrix = v.side_data_list?.find((d) => typeof d.rotation === "number")?.rotation;
  const deg = matrix !== undefined ? -matrix : (num(v.tags?.rotate) ?? 0);
  return (((Math.round(deg / 90) * 90) % 360) + 360) % 360;
}

/** Reads ffprobe `-show_format -show_streams` JSON; throws MediaError when there is nothing to encode or the container is not an accepted one. */
export function parseProbe(raw: RawProbe): ProbeResult {
  const streams = raw.streams ?? [];
  // Cover art in audio files is a one-frame "video" stream flagged attached_pic: not a video.
  const video = streams.find((s) => s.codec_type === "video" && s.disposition?.attached_pic !== 1);
  const formatName = raw.format?.format_name ?? "";
  // Belt and braces with probe()'s format whitelist: a playlist (HLS, DASH, concat…) plays files
  // it names, not the upload, so it is refused whatever streams it found.
  const refused = refusedFormat(formatName);
  if (refused) throw new MediaError(refused);
  if (!video) throw new MediaError("The file is not a video: no video stream found");
  const unlisted = unlistedFormat(formatName);
  if (unlisted) throw new MediaError(unlisted);
  const audio = streams.find((s) => s.codec_type === "audio");
  const rotation = rotationOf(video);
  const sar = ratio(video.sample_aspect_ratio) ?? 1;
  const codedW = Math.round((video.width ?? 0) * sar);
  const codedH = video.height ?? 0;
  const [width, height] = rotation % 180 === 90 ? [codedH, codedW] : [codedW, codedH];
  const durationS = num(raw.format?.duration) ?? num(video.duration) ?? 0;
  const sizeBytes = num(raw.format?.size) ?? 0;
  const bps = num(video.bit_rate) ?? num(raw.format?.bit_rate) ?? (durationS > 0 && sizeBytes > 0 ? (sizeBytes * 8) / durationS : null);
  const fps = ratio(video.avg_frame_rate) ?? ratio(video.r_frame_rate) ?? 0;
  return {
    durationS,
    width,
    height,
    rotation,
    videoCodec: video.codec_name ?? "unknown",
    pixelFormat: video.pix_fmt ?? null,
    frameRate: Math.round(fps * 1000) / 1000,
    bitrateKbps: bps === null ? null : Math.round(bps / 1000),
    audioCodec: audio?.codec_name ?? null,
    sampleRate: num(audio?.sample_rate),
    hasAudio: audio !== undefined,
    formatName,
    sizeBytes,
  };
}
