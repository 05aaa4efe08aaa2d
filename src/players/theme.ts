// A player theme's colours and flags (apivideo-behaviour §8.1): their defaults, and the check that a
// colour is one of the CSS forms api.video documents (rgba(), rgb(), #hex) before a page applies it.
import { invalidProblem, type Problem } from "../http/errors";

/** The colour fields, in api.video's order. */
export const COLOURS = [
  "text", "link", "linkHover", "linkActive", "trackPlayed", "trackUnplayed", "trackBackground",
  "backgroundTop", "backgroundBottom", "backgroundText",
] as const;
/** The boolean fields. */
export const FLAGS = ["enableApi", "enableControls", "forceAutoplay", "hideTitle", "forceLoop"] as const;

export type Colour = (typeof COLOURS)[number];
export type Flag = (typeof FLAGS)[number];
export type ThemeSettings = Record<Colour, string> & Record<Flag, boolean>;

const WHITE = "rgba(255, 255, 255, 1)";

/** api.video's documented defaults. */
export const DEFAULT_SETTINGS: ThemeSettings = {
  text: WHITE, link: WHITE, linkHover: WHITE, linkActive: WHITE, backgroundText: WHITE,
  trackPlayed: "rgba(88, 131, 255, .95)",
  trackUnplayed: "rgba(255, 255, 255, .35)",
  trackBackground: "rgba(255, 255, 255, .2)",
  backgroundTop: "rgba(0, 0, 0, .7)",
  backgroundBottom: "rgba(0, 0, 0, .7)",
  enableApi: true, enableControls: true, forceAutoplay: false, hideTitle: false, forceLoop: false,
};

const NUMBER = /^(?:\d+(?:\.\d*)?|\.\d+)$/;

// A number (0..max) or a percentage (0..100%).
function inRange(part: string, max: number): boolean {
  const pct = part.endsWith("%");
  const digits = pct ? part.slice(0, -1) : part;
  return NUMBER.test(digits) && Number(digits) <= (pct ? 100 : max);
}

/** Whether `value` is a CSS colour in one of the forms api.video shows: #rgb(a), #rrggbb(aa), rgb(…) or rgba(…) (commas, or spaces and `/ alpha`). */
export function isCssColour(value: string): boolean {
  const v = value.trim();
  if (v.length > 64) return false;
  if (/^#(?:[0-9a-f]{3,4}|[0-9a-f]{6}|[0-9a-f]{8})$/i.test(v)) return true;
  const m = /^rgba?\(([^()]*)\)$/i.exec(v);
  if (!m) return false;
  const inner = m[1].trim();
  let channels: string[];
  let alpha: string | undefined;
  if (inner.includes(",")) {
    channels = inner.split(",").map((s) => s.trim());
    if (channels.length === 4) alpha = channels.pop();
  } else {
    const [colour, a, ...rest] = inner.split("/");
    if (rest.length) return false;
    channels = colour.trim().split(/\s+/);
    alpha = a?.trim();
  }
  return channels.length === 3 && channels.every((c) => inRange(c, 255)) && (alpha === undefined || inRange(alpha, 1));
}

/** A create or update body as sent: every field optional and not yet checked. */
export type PlayerInput = Partial<Record<"name" | Colour | Flag, unknown>>;

/** Every rule `input` breaks, one problem per attribute: name ≤ 100 characters, colours, booleans. */
export function inputProblems(input: PlayerInput): Problem[] {
  const problems: Problem[] = [];
  if (input.name !== undefined && (typeof input.name !== "string" || input.name.length > 100)) {
    problems.push(invalidProblem("name", "This attribute must be a string of at most 100 characters."));
  }
  for (const c of COLOURS) {
    const v = input[c];
    if (v !== undefined && (typeof v !== "string" || !isCssColour(v))) {
      problems.push(invalidProblem(c, "This attribute must be a CSS colour: rgba(r, g, b, a), rgb(r, g, b) or #hex."));
    }
  }
  for (const f of FLAGS) if (input[f] !== undefined && typeof input[f] !== "boolean") problems.push(invalidProblem(f, "This attribute must be a boolean."));
  return problems;
}

/** The settings of a checked `input` alone (colours trimmed), ready to be merged over stored ones. */
export function pickSettings(input: PlayerInput): Partial<ThemeSettings> {
  const out: Partial<ThemeSettings> = {};
  for (const c of COLOURS) if (typeof input[c] === "string") out[c] = (input[c] as string).trim();
  for (const f of FLAGS) if (typeof input[f] === "boolean") out[f] = input[f] as boolean;
  return out;
}

/** Stored settings JSON over the defaults (a key missing from an older row gets its default). */
export function readSettings(json: string): ThemeSettings {
  const stored = JSON.parse(json) as Partial<ThemeSettings>;
  const out = { ...DEFAULT_SETTINGS };
  for (const c of COLOURS) if (typeof stored[c] === "string") out[c] = stored[c]!;
  for (const f of FLAGS) if (typeof stored[f] === "boolean") out[f] = stored[f]!;
  return out;
}
