// Which demuxers may open a file a user gave us. Left to probe freely, ffmpeg reads an uploaded
// text file starting with #EXTM3U as an HLS playlist and follows the paths in it, so a "video"
// could be encoded from any media file on the host. Plain containers hold their own media.

/**
 * Demuxers a video source (an upload, an import, a copy of either) may be read with, by ffmpeg's
 * demuxer names (`ffmpeg -demuxers`): MP4/MOV/3GP, Matroska/WebM, MPEG-TS (.ts, .m2ts, .mts),
 * AVI, FLV, MPEG-PS (.mpg, .vob), Ogg, ASF (.wmv), MXF, DV and animated GIF. The whitelist matches any one name
 * of a multi-name demuxer, and every alias is listed so the list reads like ffmpeg's.
 */
export const SOURCE_DEMUXERS = [
  "mov", "mp4", "m4a", "3gp", "3g2", "mj2",
  "matroska", "webm",
  "mpegts", "avi", "flv", "mpeg", "ogg", "asf", "mxf", "dv", "gif",
] as const;

/** Demuxers an uploaded still image (a watermark: PNG or JPEG) may be read with. */
export const IMAGE_DEMUXERS = ["png_pipe", "jpeg_pipe"] as const;

/**
 * Input options for a file a user supplied, placed right before its `-i` (ffmpeg) or its path
 * (ffprobe): only a local file, only these demuxers. A file that probes as anything else fails
 * with "Format not on whitelist" instead of being opened.
 */
export function userFileInput(demuxers: readonly string[]): string[] {
  return [
    "-protocol_whitelist", "file", // a plain local file: no http, pipe, concat: or subfile: inside it
    "-format_whitelist", demuxers.join(","), // plain containers only: no playlists that name other files
  ];
}

// Demuxers that read other files or addresses named inside the file (playlists, manifests,
// scripts, stream descriptions) or that are not files at all.
const INDIRECT = new Set([
  "hls", "applehttp", "dash", "webm_dash_manifest", "imf", "concat", "ffconcat",
  "sdp", "rtp", "rtsp", "lavfi", "avisynth", "vapoursynth",
]);

const isImage = (name: string) => name === "image2" || name === "image2pipe" || name.endsWith("_pipe");
const namesOf = (formatName: string) => formatName.split(",").map((n) => n.trim()).filter(Boolean);

/**
 * Why a file read as `formatName` (ffprobe's format_name or a demuxer's name, possibly a list
 * like "mov,mp4,m4a,3gp,3g2,mj2") is no video source: a playlist or other indirection, or a
 * still image; null otherwise.
 */
export function refusedFormat(formatName: string): string | null {
  const names = namesOf(formatName);
  if (names.some((n) => INDIRECT.has(n))) return `The file is a playlist, not a video: its format (${names.join(",")}) refers to other files.`;
  if (names.some(isImage)) return "The file is not a video: it is a still image";
  return null;
}

/** Why a file read as `formatName` is not an accepted source container (not in SOURCE_DEMUXERS), or null when it is. */
export function unlistedFormat(formatName: string): string | null {
  const names = namesOf(formatName);
  if (names.some((n) => (SOURCE_DEMUXERS as readonly string[]).includes(n))) return null;
  return `The file is not a video Vidhost accepts: its format (${names.join(",") || "unknown"}) is not MP4/MOV, Matroska/WebM, MPEG-TS, AVI, FLV, MPEG-PS, Ogg, ASF/WMV, MXF, DV or GIF.`;
}

/**
 * The readable reason for a run ffmpeg or ffprobe refused because the input's demuxer was not
 * on the whitelist (stderr holds `[hls @ 0x…] Format not on whitelist '…'`), else null.
 */
export function whitelistRefusal(stderr: string): string | null {
  const m = /\[([^\]@]+?) @ 0x[0-9a-f]+\] Format not on whitelist/i.exec(stderr);
  if (!m) return null;
  return refusedFormat(m[1]) ?? unlistedFormat(m[1]) ?? `The file's format (${m[1]}) is not accepted here.`;
}
