import { expect, test } from "bun:test";
import { MediaError } from "../media/media-error";
import { checkClip, resolveClip } from "./clip";

const timecodeTitle = "This attribute must be a timecode: HH:MM:SS, HH:MM:SS.mmm, HH:MM:SS:ff or seconds.";

test.each([
  ["HH:MM:SS to HH:MM:SS.mmm", { startTimecode: "00:00:01", endTimecode: "00:00:03.500" }, { startS: 1, endS: 3.5 }],
  ["frames count at 25 fps until the source is known", { startTimecode: "00:00:01:05", endTimecode: "4" }, { startS: 1.2, endS: 4 }],
  ["three hour digits", { startTimecode: "100:00:00" }, { startS: 360000, endS: null }],
  ["an end alone starts at 0", { endTimecode: "2.5" }, { startS: 0, endS: 2.5 }],
] as const)("%s", (_, input, want) => {
  expect(checkClip(input)).toEqual({ problems: [], clip: { ...want, ...input } });
});

test("nothing to trim stores nothing", () => {
  expect(checkClip({})).toEqual({ problems: [], clip: null });
  expect(checkClip({ startTimecode: "00:00:00" })).toEqual({ problems: [], clip: null });
});

test.each([
  ["malformed start", { startTimecode: "1 minute" }, [["clip[startTimecode]", timecodeTitle]]],
  ["malformed both", { startTimecode: "00:99:00", endTimecode: "-3" }, [["clip[startTimecode]", timecodeTitle], ["clip[endTimecode]", timecodeTitle]]],
  ["end before start", { startTimecode: "00:00:05", endTimecode: "00:00:02" }, [["clip[endTimecode]", "This attribute must be later than startTimecode."]]],
  ["end equal to start", { startTimecode: "3", endTimecode: "00:00:03" }, [["clip[endTimecode]", "This attribute must be later than startTimecode."]]],
] as const)("%s → 400 invalid-attribute", (_, input, want) => {
  const { problems, clip } = checkClip(input);
  expect(clip).toBeNull();
  expect(problems.map((p) => [p.name, p.title])).toEqual(want.map((w) => [...w]));
  expect(problems.every((p) => p.kind === "invalid-attribute")).toBe(true);
});

test("resolveClip re-reads frames at the source's rate and caps the end", () => {
  const stored = checkClip({ startTimecode: "00:00:01:15", endTimecode: "00:01:00" }).clip!;
  expect(resolveClip(stored, { durationS: 8, frameRate: 30 })).toEqual({ startS: 1.5, endS: 8 });
  expect(resolveClip({ startS: 2, endS: null }, { durationS: 8, frameRate: 0 })).toEqual({ startS: 2, endS: 8 });
});

test("resolveClip refuses a clip past the end of the source", () => {
  expect(() => resolveClip({ startS: 10, endS: 12, startTimecode: "10", endTimecode: "12" }, { durationS: 8, frameRate: 25 })).toThrow(MediaError);
  expect(() => resolveClip({ startS: 10, endS: 12 }, { durationS: 8, frameRate: 25 })).toThrow("after the end of the video (8 s)");
});
