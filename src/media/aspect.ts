// The status object's `aspectRatio` ("16:9"): people expect the familiar name, not 427:240.

// Familiar ratios, tried before the exact reduction; encoders round sizes (854x480, 426x240),
// so a near match is the ratio the author meant.
const COMMON: [number, number][] = [
  [16, 9], [9, 16], [4, 3], [3, 4], [1, 1], [3, 2], [2, 3], [5, 4], [4, 5], [21, 9], [9, 21], [2, 1], [1, 2],
];

/** Relative error tolerated when snapping to a familiar ratio (854x480 is 0.1 % off 16:9; "21:9" monitors are 64:27, 1.6 % off). */
const SNAP = 0.02;

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));

/** "16:9", "4:3", "9:16", …; a reduced "w:h" when no familiar ratio is near; "" for a degenerate size. */
export function aspectRatio(width: number, height: number): string {
  if (!(width > 0 && height > 0)) return "";
  const r = width / height;
  const near = COMMON.find(([a, b]) => Math.abs(r / (a / b) - 1) <= SNAP);
  if (near) return `${near[0]}:${near[1]}`;
  const w = Math.round(width);
  const h = Math.round(height);
  const d = gcd(w, h);
  // A reduction that stays large (e.g. 1919:1080) reads better as a decimal against 1.
  if (w / d > 64 || h / d > 64) return r >= 1 ? `${round2(r)}:1` : `1:${round2(1 / r)}`;
  return `${w / d}:${h / d}`;
}

const round2 = (n: number) => String(Math.round(n * 100) / 100);
