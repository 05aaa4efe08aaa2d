import { expect, test } from "bun:test";
import { placementProblems, storedWatermark } from "./placement";

const id = "watermark_1BWr2L5MTQwxGkuxKjzh6i";

test.each([
  ["the OpenAPI example", { id, bottom: "10px", right: "10px", width: "50%", opacity: "70%" }],
  ["bare numbers, initial sizes, 0%", { id, top: "0", left: "12.5%", width: "initial", height: "initial", opacity: "0%" }],
  ["only the id", { id }],
])("%s is accepted", (_, input) => {
  expect(placementProblems(input)).toEqual([]);
});

test.each([
  ["no id", { top: "10px" }, [["attribute-required", "watermark[id]"]]],
  ["units other than px and %", { id, top: "1em", width: "big" }, [["invalid-attribute", "watermark[top]"], ["invalid-attribute", "watermark[width]"]]],
  ["over 100%", { id, left: "101%", height: "150%" }, [["invalid-attribute", "watermark[left]"], ["invalid-attribute", "watermark[height]"]]],
  ["opposite edges", { id, top: "1px", bottom: "1px", left: "1px", right: "1px" }, [["invalid-attribute", "watermark[bottom]"], ["invalid-attribute", "watermark[right]"]]],
  ["opacity not a percentage", { id, opacity: "half" }, [["invalid-attribute", "watermark[opacity]"]]],
  ["opacity over 100%", { id, opacity: "120%" }, [["invalid-attribute", "watermark[opacity]"]]],
])("%s → problems", (_, input, want) => {
  expect(placementProblems(input).map((p) => [p.kind, p.name])).toEqual(want);
});

test("storedWatermark keeps the given fields, trimmed, with the image's format", () => {
  expect(storedWatermark({ id, top: " 10px ", opacity: "50%" }, id, "png")).toEqual({ id, format: "png", top: "10px", opacity: "50%" });
});
