import { expect, test } from "bun:test";
import { parseTimecode } from "./timecode";

test.each([
  ["12", 12], ["1.5", 1.5], ["00:00:03", 3], ["01:02:03", 3723], ["00:00:01.5", 1.5], ["00:00:01.250", 1.25],
  ["00:00:02:12", 2.5], ["100:00:00", 360000], ["nope", null], ["00:61:00", null], ["-1", null], ["", null],
] as const)("%p → %p", (text, seconds) => {
  expect(parseTimecode(text, 24)).toBe(seconds);
});
