import { describe, expect, test } from "bun:test";
import { hlsCutTimes, parseKeyframeCsv } from "./keyframes";

describe("parseKeyframeCsv", () => {
  test("keeps key packets, sorts them, and subtracts the container start", () => {
    // Packets come in decode order; the format section's start_time is a lone value.
    const csv = ["1.400000,K__", "1.480000,___", "1.440000,___", "3.000000,K_", "2.200000,K__", "N/A,K__", "", "1.400000"].join("\n");
    expect(parseKeyframeCsv(csv)).toEqual([0, 0.8, 1.6]);
  });

  test("no start line means the times are already from zero", () => {
    expect(parseKeyframeCsv("0.000000,K__\n2.002000,K__\n")).toEqual([0, 2.002]);
  });
});

describe("hlsCutTimes", () => {
  test("regular keyframes on the segment grid: one cut per segment", () => {
    expect(hlsCutTimes([0, 2, 4, 6, 8], 2)).toEqual([0, 2, 4, 6, 8]);
    expect(hlsCutTimes([0, 1, 2, 3, 4, 5, 6], 2)).toEqual([0, 2, 4, 6]);
  });

  test("the first keyframe at or past each multiple, thresholds advancing one segment per cut", () => {
    expect(hlsCutTimes([0, 1.6, 3.2, 4.8, 6.4, 8, 9.6], 2)).toEqual([0, 3.2, 4.8, 6.4, 8]);
    // A 10 s gap: the next threshold is 4 s (not 12 s), so the keyframe right after cuts again.
    expect(hlsCutTimes([0, 2, 12, 12.5, 14], 2)).toEqual([0, 2, 12, 12.5, 14]);
  });

  test("float noise does not move a cut; times are relative to the first keyframe", () => {
    expect(hlsCutTimes([0.5, 2.4999999, 4.5], 2)).toEqual([0.5, 2.4999999, 4.5]);
    expect(hlsCutTimes([], 2)).toEqual([]);
  });
});
