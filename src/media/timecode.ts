/**
 * Parses api.video timecodes into seconds: `HH:MM:SS` (up to 3 hour digits, as the OpenAPI allows),
 * `HH:MM:SS.mmm`, `HH:MM:SS:ff` (frames at `fps`) or plain seconds. Returns null for anything else.
 */
export function parseTimecode(text: string, fps = 25): number | null {
  const value = text.trim();
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value);
  const m = /^(\d{1,3}):([0-5]\d):([0-5]\d)(?:\.(\d{1,3})|:(\d{1,3}))?$/.exec(value);
  if (!m) return null;
  const [, h, min, s, ms, frames] = m;
  const base = Number(h) * 3600 + Number(min) * 60 + Number(s);
  if (ms !== undefined) return base + Number(ms.padEnd(3, "0")) / 1000;
  if (frames !== undefined) return base + Number(frames) / fps;
  return base;
}
