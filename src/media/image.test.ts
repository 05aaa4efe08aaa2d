import { expect, test } from "bun:test";
import { imageCheckArgs, imageInfo } from "./image";

const u16 = (n: number) => [n >> 8, n & 0xff];
const u32 = (n: number) => [(n >>> 24) & 0xff, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff];
const png = (w: number, h: number) => new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, ...u32(13), 0x49, 0x48, 0x44, 0x52, ...u32(w), ...u32(h), 8, 6, 0, 0, 0]);
// SOI, an APP0 segment, a DHT (C4, not a frame header), then SOF2 (progressive) with height, width.
const jpeg = (w: number, h: number) => new Uint8Array([
  0xff, 0xd8,
  0xff, 0xe0, ...u16(6), 0x4a, 0x46, 0x49, 0x46,
  0xff, 0xc4, ...u16(4), 0, 0,
  0xff, 0xc2, ...u16(11), 8, ...u16(h), ...u16(w), 1, 1, 0x11, 0,
]);

test.each([
  ["a PNG", png(640, 360), { format: "png", width: 640, height: 360 }],
  ["a progressive JPEG past other segments", jpeg(200, 100), { format: "jpg", width: 200, height: 100 }],
  ["a PNG signature without IHDR", png(1, 1).map((b, i) => (i === 12 ? 0x41 : b)), null],
  ["a JPEG cut before its frame header", jpeg(200, 100).slice(0, 14), null],
  ["a zero-sized PNG", png(0, 10), null],
  ["a GIF", new TextEncoder().encode("GIF89a\x01\x00\x01\x00"), null],
  ["WebP (not a watermark format)", new TextEncoder().encode("RIFF\x00\x00\x00\x00WEBPVP8 "), null],
  ["nothing", new Uint8Array(0), null],
] as const)("%s", (_, bytes, want) => {
  expect(imageInfo(bytes as Uint8Array)).toEqual(want as never);
});

test("imageCheckArgs decodes one frame and writes nothing", () => {
  expect(imageCheckArgs("/wm.png")).toEqual(["-xerror", "-err_detect", "explode", "-i", "/wm.png", "-map", "0:v:0", "-frames:v", "1", "-f", "null", "-"]);
});
