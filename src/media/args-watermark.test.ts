import { expect, test } from "bun:test";
import { watermarkInput } from "./args-watermark";

const video = { width: 1920, height: 1080 };

test.each([
  ["nothing set: the image as is, top-left", {}, { file: "/wm.png", filter: "overlay=0:0" }],
  ["px and % edges", { top: "10px", right: "5%" }, { file: "/wm.png", filter: "overlay=W-w-96:10" }],
  ["bottom-left in bare numbers", { bottom: "20", left: "0" }, { file: "/wm.png", filter: "overlay=0:H-h-20" }],
  ["width as % of the video, height follows", { width: "10%", top: "1%", left: "1%" }, { file: "/wm.png", prepare: "scale=192:-1", filter: "overlay=19:11" }],
  ["both sizes in px", { width: "200px", height: "100px" }, { file: "/wm.png", prepare: "scale=200:100", filter: "overlay=0:0" }],
  ["initial keeps the size; opacity scales alpha", { width: "initial", opacity: "70%" }, { file: "/wm.png", prepare: "format=rgba,colorchannelmixer=aa=0.7", filter: "overlay=0:0" }],
  ["full opacity and junk are no-ops", { opacity: "100%", top: "lots" }, { file: "/wm.png", filter: "overlay=0:0" }],
] as const)("%s", (_, placement, want) => {
  expect(watermarkInput("/wm.png", placement, video)).toEqual(want as never);
});
