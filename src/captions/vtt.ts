// WebVTT, just enough of it: cues read from a file (for transcripts and chapter lists), cues
// written as a file (generated captions), plain text for summaries, and the X-TIMESTAMP-MAP header
// HLS players need to line subtitles up with MPEG-TS video. Pure functions.

export interface Cue {
  startS: number;
  endS: number;
  text: string;
}

const TIMING = /^\s*((?:\d+:)?\d{1,2}:\d{2}[.,]\d{1,3})\s+-->\s+((?:\d+:)?\d{1,2}:\d{2}[.,]\d{1,3})/;

/** `01:02:03.456` or `02:03.456` in seconds. */
export function vttSeconds(stamp: string): number {
  const parts = stamp.replace(",", ".").split(":").map(Number);
  return parts.reduce((acc, p) => acc * 60 + p, 0);
}

/** Seconds as `HH:MM:SS.mmm`. */
export function vttStamp(seconds: number): string {
  const ms = Math.max(0, Math.round(seconds * 1000));
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = Math.floor((ms % 60_000) / 1000);
  const pad = (n: number, w = 2) => String(n).padStart(w, "0");
  return `${pad(h)}:${pad(m)}:${pad(s)}.${pad(ms % 1000, 3)}`;
}

// Cue text without markup: <v Speaker>, <i>, <c.class>, timestamps <00:01.000>; entities decoded.
function plain(text: string): string {
  return text
    .replace(/<[^>]*>/g, "")
    .replace(/&(amp|lt|gt|nbsp|lrm|rlm);/g, (_, e: string) => ({ amp: "&", lt: "<", gt: ">", nbsp: " ", lrm: "", rlm: "" })[e] ?? "")
    .replace(/[ \t]+/g, " ")
    .trim();
}

/** Every cue of a WebVTT document, in file order; lenient (a malformed block is skipped, not fatal). */
export function parseVtt(vtt: string): Cue[] {
  const blocks = vtt.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n").split(/\n{2,}/);
  const cues: Cue[] = [];
  for (const block of blocks) {
    const lines = block.split("\n");
    const at = lines.findIndex((l) => TIMING.test(l));
    if (at < 0 || at > 1) continue; // header, NOTE, STYLE, REGION blocks, or garbage
    const m = TIMING.exec(lines[at])!;
    const text = lines.slice(at + 1).map(plain).filter(Boolean).join("\n");
    if (text) cues.push({ startS: vttSeconds(m[1]), endS: vttSeconds(m[2]), text });
  }
  return cues;
}

/** The spoken text of a caption file, one line per cue joined by spaces, repeated cue text dropped. */
export function vttToText(vtt: string): string {
  const out: string[] = [];
  for (const cue of parseVtt(vtt)) {
    const line = cue.text.replace(/\s+/g, " ").trim();
    // Roll-up captions repeat the previous line; keep each once.
    if (line && out[out.length - 1] !== line) out.push(line);
  }
  return out.join(" ");
}

/** A WebVTT document from cues (generated captions). */
export function cuesToVtt(cues: Cue[]): string {
  const body = cues.map((c) => `${vttStamp(c.startS)} --> ${vttStamp(Math.max(c.endS, c.startS + 0.001))}\n${c.text.replace(/\n{2,}/g, "\n").replace(/-->/g, "->")}`);
  return ["WEBVTT", "", ...body.flatMap((b) => [b, ""])].join("\n");
}

/**
 * The document with `X-TIMESTAMP-MAP=MPEGTS:<pts>,LOCAL:00:00:00.000` in its header, so cue time 0
 * is the first video frame of MPEG-TS segments whose timestamps start at `pts` (90 kHz). A file
 * without the `WEBVTT` signature gets one.
 */
export function withTimestampMap(vtt: string, pts: number): string {
  const text = vtt.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
  const map = `X-TIMESTAMP-MAP=MPEGTS:${pts},LOCAL:00:00:00.000`;
  if (!/^WEBVTT(?=$|[ \t\n])/.test(text)) return `WEBVTT\n${map}\n\n${text}`;
  const eol = text.indexOf("\n");
  if (eol < 0) return `${text}\n${map}\n`;
  const header = text.slice(0, eol).trimEnd();
  const rest = text.slice(eol + 1).split("\n");
  // Drop a map already there: a file authored for HLS must not carry two.
  const kept = rest.filter((l, i) => !(l.startsWith("X-TIMESTAMP-MAP=") && rest.slice(0, i).every((x) => x.trim() !== "")));
  return [header, map, ...kept].join("\n");
}
