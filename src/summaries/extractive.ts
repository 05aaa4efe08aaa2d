// The built-in summariser, needing no model: sentences ranked by centrality (TextRank over TF-IDF
// sentence vectors). The abstract is the best-ranked sentences (20 to 300 words) and the takeaways
// three distinct central sentences, both in the order they are spoken. Deterministic: the same
// transcript always gives the same summary.
import { STOP_WORDS, stopWordLanguage } from "./stopwords";

export const ABSTRACT_MIN_WORDS = 20;
export const ABSTRACT_MAX_WORDS = 300;
const DAMPING = 0.85;
/** Longer "sentences" (captions without punctuation, run-ons) are cut into pieces of about this many words. */
const MAX_UNIT_WORDS = 45;
/** Two takeaways more alike than this say the same thing. */
const REDUNDANT = 0.6;

const ABBREVIATIONS = new Set(["mr", "mrs", "ms", "dr", "prof", "st", "sr", "sra", "jr", "vs", "e.g", "i.e", "z.b", "u.a", "bzw", "ca", "cf", "mme", "mlle", "m", "etc", "no", "nr", "p", "pp", "art", "fig", "dt"]);

const words = (s: string): string[] => s.split(/\s+/).filter(Boolean);

/** Splits text into sentences (punctuation followed by space), keeping known abbreviations whole. */
export function splitSentences(text: string): string[] {
  const clean = text.replace(/\s+/g, " ").trim();
  if (!clean) return [];
  const pieces = clean.split(/(?<=[.!?…。！？])\s+/u);
  const out: string[] = [];
  for (const piece of pieces) {
    const prev = out[out.length - 1];
    const lastWord = prev?.split(" ").pop()?.toLowerCase().replace(/\.$/, "");
    // "Dr. Smith", "e.g. this": the period ended an abbreviation, not a sentence.
    if (prev && lastWord !== undefined && prev.endsWith(".") && ABBREVIATIONS.has(lastWord) && !/^\p{Lu}{2,}/u.test(piece)) {
      out[out.length - 1] = `${prev} ${piece}`;
    } else out.push(piece);
  }
  return out;
}

// Cuts a long unit at clause punctuation, else evenly by words, into pieces of at most `max` words.
function cut(unit: string, max: number): string[] {
  const w = words(unit);
  if (w.length <= max) return [unit];
  const clauses = unit.split(/(?<=[;:,])\s+/);
  if (clauses.length > 1) {
    const out: string[] = [];
    let current = "";
    for (const c of clauses) {
      if (current && words(current).length + words(c).length > max) {
        out.push(current);
        current = c;
      } else current = current ? `${current} ${c}` : c;
    }
    if (current) out.push(current);
    if (out.length > 1) return out.flatMap((o) => cut(o, max));
  }
  const parts = Math.ceil(w.length / max);
  const size = Math.ceil(w.length / parts);
  const out: string[] = [];
  for (let i = 0; i < w.length; i += size) out.push(w.slice(i, i + size).join(" "));
  return out;
}

/** The units ranked: sentences, long ones cut, and cut further until there are at least three. */
export function textUnits(text: string): string[] {
  let units = splitSentences(text).flatMap((s) => cut(s, MAX_UNIT_WORDS));
  while (units.length > 0 && units.length < 3) {
    let longest = 0;
    units.forEach((u, i) => { if (words(u).length > words(units[longest]).length) longest = i; });
    const n = words(units[longest]).length;
    if (n < 2) break;
    units = [...units.slice(0, longest), ...cut(units[longest], Math.ceil(n / 2)), ...units.slice(longest + 1)];
  }
  return units;
}

/** Lowercase content words of a unit: letters/digits runs, apostrophes split off, stop-words dropped. */
export function tokens(unit: string, stop: Set<string>): string[] {
  return (unit.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((t) => t.length > 1 && !stop.has(t));
}

type Vector = Map<string, number>;

/** TF-IDF vectors of the units (smoothed idf, so a word in every unit still counts a little). */
export function tfidf(unitTokens: string[][]): Vector[] {
  const n = unitTokens.length;
  const df = new Map<string, number>();
  for (const ts of unitTokens) for (const t of new Set(ts)) df.set(t, (df.get(t) ?? 0) + 1);
  return unitTokens.map((ts) => {
    const v: Vector = new Map();
    for (const t of ts) v.set(t, (v.get(t) ?? 0) + 1);
    for (const [t, tf] of v) v.set(t, tf * (Math.log((1 + n) / (1 + df.get(t)!)) + 1));
    return v;
  });
}

export function cosine(a: Vector, b: Vector): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (const [t, x] of a) {
    na += x * x;
    const y = b.get(t);
    if (y !== undefined) dot += x * y;
  }
  for (const y of b.values()) nb += y * y;
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
}

/** Weighted PageRank over the similarity graph: a unit is central when central units resemble it. */
export function textRank(vectors: Vector[]): number[] {
  const n = vectors.length;
  if (n === 0) return [];
  const w = vectors.map((a, i) => vectors.map((b, j) => (i === j ? 0 : cosine(a, b))));
  const out = w.map((row) => row.reduce((s, x) => s + x, 0));
  let score = new Array<number>(n).fill(1 / n);
  for (let iter = 0; iter < 200; iter++) {
    // Units like no other spread their rank evenly (the usual dangling-node rule).
    const dangling = score.reduce((s, x, j) => (out[j] === 0 ? s + x : s), 0);
    const next = score.map((_, i) => {
      let sum = 0;
      for (let j = 0; j < n; j++) if (out[j] > 0) sum += (w[j][i] / out[j]) * score[j];
      return (1 - DAMPING) / n + DAMPING * (sum + dangling / n);
    });
    const delta = next.reduce((m, x, i) => Math.max(m, Math.abs(x - score[i])), 0);
    score = next;
    if (delta < 1e-10) break;
  }
  return score;
}

export interface ExtractiveSummary {
  abstract?: string;
  takeaways?: string[];
}

/** Summarises a transcript (≥ 50 words expected); `language` picks the stop-words (else detected). */
export function extractiveSummary(text: string, opts: { language: string | null; attributes: ("abstract" | "takeaways")[] }): ExtractiveSummary {
  const units = textUnits(text);
  const lang = stopWordLanguage(text.toLowerCase().match(/[\p{L}]+/gu) ?? [], opts.language);
  const vectors = tfidf(units.map((u) => tokens(u, STOP_WORDS[lang])));
  const score = textRank(vectors);
  // Best first; equal scores keep the earlier unit first.
  const ranked = units.map((_, i) => i).sort((a, b) => score[b] - score[a] || a - b);
  const result: ExtractiveSummary = {};
  if (opts.attributes.includes("abstract")) result.abstract = abstractOf(units, ranked);
  if (opts.attributes.includes("takeaways")) result.takeaways = takeawaysOf(units, ranked, vectors);
  return result;
}

// Best-ranked units until about a quarter of the transcript (20 to 300 words), in spoken order.
function abstractOf(units: string[], ranked: number[]): string {
  const total = units.reduce((s, u) => s + words(u).length, 0);
  const target = Math.min(150, Math.max(ABSTRACT_MIN_WORDS, Math.round(total / 4)));
  const chosen: number[] = [];
  let count = 0;
  for (const i of ranked) {
    if (count >= target) break;
    const n = words(units[i]).length;
    if (count + n > ABSTRACT_MAX_WORDS) continue;
    chosen.push(i);
    count += n;
  }
  if (!chosen.length) return words(units[ranked[0]]).slice(0, ABSTRACT_MAX_WORDS).join(" ");
  return chosen.sort((a, b) => a - b).map((i) => units[i]).join(" ");
}

// Three central units that do not repeat each other (relaxed when the text has too few), in spoken order.
function takeawaysOf(units: string[], ranked: number[], vectors: Vector[]): string[] {
  const chosen: number[] = [];
  const pick = (ok: (i: number) => boolean) => {
    for (const i of ranked) {
      if (chosen.length === 3) return;
      if (!chosen.includes(i) && ok(i)) chosen.push(i);
    }
  };
  pick((i) => words(units[i]).length >= 4 && chosen.every((j) => cosine(vectors[i], vectors[j]) < REDUNDANT));
  pick((i) => words(units[i]).length >= 4);
  pick(() => true);
  return chosen.sort((a, b) => a - b).map((i) => units[i]);
}
