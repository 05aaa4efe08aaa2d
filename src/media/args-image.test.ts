import { expect, test } from "bun:test";
import { imageCheckArgs } from "./args-image";

test("imageCheckArgs decodes one frame, fails on any decoder error, and writes nothing", () => {
  expect(imageCheckArgs("/wm.png")).toEqual(["-xerror", "-err_detect", "explode", "-i", "/wm.png", "-map", "0:v:0", "-frames:v", "1", "-f", "null", "-"]);
});
