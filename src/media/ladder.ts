// The HLS ladder: which renditions a source gets, at what size and bitrate, and whether the
// source itself can stand in for the top one.
import type { ProbeResult } from "./probe-parse";

/** api.video's quality names, lowest first. */
export const qualityNames = ["240p", "360p", "480p", "720p", "1080p", "2160p"] as const;
/** One of qualityNames. */
export type QualityName = (typeof qualityNames)[number];

/** One rung: output size and rate control for the encoder. */
export interface Rendition {
  name: QualityName;
  width: number;
  height: number;
  videoKbps: number;
  maxrateKbps: number;
  bufsizeKbps: number;
  audioKbps: number;
}

// Video kbps at ≤ 30 fps, inside api.video's encoder-guide ranges (reference §5) and toward their
// low end: the ladder has a rung above for viewers with bandwidth to spare. Audio as the guide says.
const RUNGS: { name: QualityName; short: number; videoKbps: number; audioKbps: number }[] = [
  { name: "240p", short: 240, videoKbps: 400, audioKbps: 64 },
  { name: "360p", short: 360, videoKbps: 800, audioKbps: 128 },
  { name: "480p", short: 480, videoKbps: 1200, audioKbps: 128 },
  { name: "720p", short: 720, videoKbps: 2800, audioKbps: 128 },
  { name: "1080p", short: 1080, videoKbps: 5000, audioKbps: 128 },
  { name: "2160p", short: 2160, videoKbps: 16000, audioKbps: 192 },
];

/** A source this close below a rung still gets it, at its own size: 1920x1072 is a 1080p source. */
const SNAP = 0.96;

/** The guide's 60 fps ranges are about 1.5× its 30 fps ones. */
const HIGH_FPS_FACTOR = 1.5;

// H.264 4:2:0 needs even sizes; rounding never goes past the source's own (floored) size.
const even = (n: number, cap: number) => Math.max(2, Math.min(Math.round(n / 2) * 2, Math.floor(cap / 2) * 2));

/**
 * Rungs from 240p up to the highest one the source's short side reaches (never upscaling): a
 * 600p source gets 240/360/480p. Portrait sources apply rungs to their width. A source whose
 * short side is under 240 gets one "240p" rendition at its own (evened) size.
 */
export function ladderFor(p: { width: number; height: number; frameRate?: number }): Rendition[] {
  const portrait = p.height > p.width;
  const short = Math.min(p.width, p.height);
  const long = Math.max(p.width, p.height);
  const boost = (p.frameRate ?? 30) > 31 ? HIGH_FPS_FACTOR : 1;
  const rungs = RUNGS.filter((r) => short >= r.short * SNAP);
  if (rungs.length === 0) return [rendition(RUNGS[0], even(p.width, p.width), even(p.height, p.height), boost)];
  return rungs.map((r) => {
    const s = even(Math.min(r.short, short), short);
    const l = even((s * long) / short, long);
    return portrait ? rendition(r, s, l, boost) : rendition(r, l, s, boost);
  });
}

// Rate control for a VOD ladder: a peak 10 % over the average keeps segment sizes predictable for
// the master playlist's BANDWIDTH; a two-second buffer (2× average) lets x264 spend bits on hard scenes.
function rendition(r: (typeof RUNGS)[number], width: number, height: number, boost: number): Rendition {
  const videoKbps = Math.round(r.videoKbps * boost);
  return {
    name: r.name,
    width,
    height,
    videoKbps,
    maxrateKbps: Math.round(videoKbps * 1.1),
    bufsizeKbps: videoKbps * 2,
    audioKbps: r.audioKbps,
  };
}

/** Sources above this multiple of the rung's peak are re-encoded: serving them as-is would strand slower viewers on the rung below. */
const REMUX_BITRATE_FACTOR = 2;

/**
 * True when the source can be served as the top rendition without re-encoding (a stream-copy
 * remux, well under a second): H.264 4:2:0 8-bit, ≤ 60 fps, AAC or silent, exactly the rung's
 * size, not rotated (MPEG-TS has no rotation flag), and a bitrate within reach of the rung's.
 */
export function isRemuxable(probe: ProbeResult, top: Rendition): boolean {
  return (
    probe.videoCodec === "h264" &&
    (probe.pixelFormat === "yuv420p" || probe.pixelFormat === "yuvj420p") &&
    probe.frameRate > 0 &&
    probe.frameRate <= 60 &&
    probe.rotation === 0 &&
    probe.bitrateKbps !== null &&
    probe.bitrateKbps <= top.maxrateKbps * REMUX_BITRATE_FACTOR &&
    (!probe.hasAudio || probe.audioCodec === "aac") &&
    probe.width === top.width &&
    probe.height === top.height
  );
}
