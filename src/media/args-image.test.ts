import { expect, test } from "bun:test";
import { imageCheckArgs } from "./args-image";

// A user's image: a local file, read only as PNG or JPEG.
const IMAGE_ONLY = ["-protocol_whitelist", "file", "-format_whitelist", "png_pipe,jpeg_pipe"];

test("imageCheckArgs decodes one frame, fails on any decoder error, and writes nothing", () => {
  expect(imageCheckArgs("/wm.png")).toEqual(["-xerror", "-err_detect", "explode", ...IMAGE_ONLY, "-i", "/wm.png", "-map", "0:v:0", "-frames:v", "1", "-f", "null", "-"]);
});
