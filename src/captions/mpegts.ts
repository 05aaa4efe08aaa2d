// Reads the first presentation timestamp of an MPEG-TS segment: what X-TIMESTAMP-MAP must name so
// HLS players place WebVTT cue time 0 on the first frame (ffmpeg's TS muxer starts at 1.4 s).

const PACKET = 188;

/** The smallest PTS (90 kHz) among the first PES packet of each audio/video stream in `ts`, or null. */
export function firstPts(ts: Uint8Array): number | null {
  const seen = new Set<number>();
  let min: number | null = null;
  for (let at = 0; at + PACKET <= ts.length; at += PACKET) {
    if (ts[at] !== 0x47) return min; // lost sync: not MPEG-TS (or not from the start)
    const unitStart = (ts[at + 1] & 0x40) !== 0;
    const pid = ((ts[at + 1] & 0x1f) << 8) | ts[at + 2];
    if (!unitStart || seen.has(pid)) continue;
    const adaptation = (ts[at + 3] >> 4) & 0x3;
    if (adaptation === 2) continue; // adaptation field only, no payload
    const p = at + (adaptation === 3 ? 5 + ts[at + 4] : 4);
    if (p + 14 > at + PACKET) continue;
    // PES start code and an audio (0xC0–0xDF) or video (0xE0–0xEF) stream id.
    if (ts[p] !== 0 || ts[p + 1] !== 0 || ts[p + 2] !== 1 || ts[p + 3] < 0xc0 || ts[p + 3] > 0xef) continue;
    seen.add(pid);
    if ((ts[p + 7] & 0x80) === 0) continue; // no PTS in this header
    const pts = ((ts[p + 9] >> 1) & 0x07) * 2 ** 30 + ts[p + 10] * 2 ** 22 + ((ts[p + 11] >> 1) & 0x7f) * 2 ** 15 + ts[p + 12] * 2 ** 7 + (ts[p + 13] >> 1);
    min = min === null ? pts : Math.min(min, pts);
  }
  return min;
}
