// Usage charts as inline SVG: one bar per day, series stacked, a light grid and a legend.
import { h, s } from "./dom";

export interface Series {
  label: string;
  values: number[];
  /** CSS class giving the bars their colour (see styles.css). */
  tone: string;
}

/** The smallest 1, 2 or 5 × 10^k at or above `value` (a readable axis top). */
export function niceCeiling(value: number): number {
  if (value <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  return ([1, 2, 5, 10].find((m) => m * power >= value) ?? 10) * power;
}

const W = 600;
const H = 220;
const LEFT = 48;
const BOTTOM = 24;
const TOP = 10;

const shortDay = (day: string) => new Date(`${day}T00:00:00Z`).toLocaleDateString(undefined, { month: "short", day: "numeric", timeZone: "UTC" });
const number = (n: number) => (Math.round(n * 100) / 100).toLocaleString();

/** A stacked bar chart of per-day values (`days` are YYYY-MM-DD). */
export function barChart(opts: { title: string; days: string[]; series: Series[]; unit: string }): HTMLElement {
  const totals = opts.days.map((_, i) => opts.series.reduce((sum, serie) => sum + (serie.values[i] ?? 0), 0));
  const top = niceCeiling(Math.max(...totals, 0));
  const plotW = W - LEFT - 8;
  const plotH = H - TOP - BOTTOM;
  const slot = plotW / Math.max(1, opts.days.length);
  const y = (v: number) => TOP + plotH - (v / top) * plotH;

  const grid = [0, top / 2, top].map((v) => [
    s("line", { x1: LEFT, x2: W - 8, y1: y(v), y2: y(v), class: "grid" }),
    s("text", { x: LEFT - 6, y: y(v) + 4, "text-anchor": "end", class: "axis" }, number(v)),
  ]);
  const bars = opts.days.map((day, i) => {
    let base = 0;
    const x = LEFT + i * slot + slot * 0.15;
    const parts = opts.series.map((serie) => {
      const v = serie.values[i] ?? 0;
      const rect = v > 0 ? s("rect", { x, width: slot * 0.7, y: y(base + v), height: y(base) - y(base + v), class: `bar ${serie.tone}` }) : null;
      base += v;
      return rect;
    });
    const label = `${day}: ${opts.series.map((serie) => `${serie.label} ${number(serie.values[i] ?? 0)} ${opts.unit}`).join(", ")}`;
    // An invisible full-height target carries the tooltip, so empty days can be hovered too.
    return s("g", null, s("title", null, label), s("rect", { x: LEFT + i * slot, width: slot, y: TOP, height: plotH, class: "hover" }), parts);
  });
  const tickAt = [0, Math.floor((opts.days.length - 1) / 2), opts.days.length - 1].filter((v, i, a) => a.indexOf(v) === i);
  const ticks = tickAt.map((i) =>
    s("text", { x: LEFT + i * slot + slot / 2, y: H - 6, "text-anchor": i === 0 ? "start" : i === opts.days.length - 1 ? "end" : "middle", class: "axis" }, shortDay(opts.days[i])));

  const svg = s("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": opts.title, class: "chart" }, grid, bars, ticks);
  const total = totals.reduce((a, b) => a + b, 0);
  return h("figure", { class: "chart-box" },
    h("figcaption", null, h("strong", null, opts.title), h("span", { class: "muted" }, ` ${opts.unit}`)),
    svg,
    h("ul", { class: "legend" }, opts.series.map((serie) =>
      h("li", null, h("span", { class: `swatch ${serie.tone}` }), `${serie.label}: ${number(serie.values.reduce((a, b) => a + b, 0))}`))),
    opts.series.length > 1 ? h("p", { class: "muted small" }, `Total ${number(total)} ${opts.unit}`) : null);
}

/** A single-series chart of a level (not a sum): shows the last value rather than a total. */
export function levelChart(opts: { title: string; days: string[]; values: number[]; unit: string; tone: string; label: string }): HTMLElement {
  const chart = barChart({ title: opts.title, days: opts.days, unit: opts.unit, series: [{ label: opts.label, values: opts.values, tone: opts.tone }] });
  const legend = chart.querySelector(".legend");
  legend?.replaceChildren(h("li", null, h("span", { class: `swatch ${opts.tone}` }), `${opts.label} now: ${number(opts.values[opts.values.length - 1] ?? 0)}`));
  return chart;
}
