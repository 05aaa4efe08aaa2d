// Player-theme pieces without a server: colour checks, settings merge, image sizes from headers,
// and the player page's logo markup and CSP.
import { describe, expect, test } from "bun:test";
import { renderPlayerPage } from "../delivery/player";
import { imageSize } from "../media/image-size";
import { DEFAULT_SETTINGS, inputProblems, isCssColour, pickSettings, readSettings } from "./theme";

describe("isCssColour", () => {
  test.each([
    "rgba(255, 255, 255, 1)", "rgba(88, 131, 255, .95)", "rgba(0, 0, 0, 0)", "rgb(255,0,0)", "RGBA(1, 2, 3, 0.5)",
    "rgba(100%, 0%, 50%, 50%)", "rgb(255 0 0)", "rgb(255 0 0 / .5)", "#fff", "#FFFA", "#12ab9f", "#12ab9f80", " #000 ",
  ])("accepts %p", (v) => expect(isCssColour(v)).toBe(true));

  test.each([
    "", "red", "junk", "#ff", "#12345", "#ggg", "rgb(1, 2)", "rgb(256, 0, 0)", "rgba(0, 0, 0, 1.5)", "rgba(0,0,0,-1)",
    "rgb(1, 2, 3, 4, 5)", "rgb(1e2, 0, 0)", "rgb(0 0 0 / 1 / 2)", "rgba(0,0,0,1);background:url(x)", "rgb(0,0,0))",
    `rgba(${"0".repeat(80)}, 0, 0, 1)`, "hsl(0, 0%, 0%)", "rgba(101%, 0, 0, 1)",
  ])("refuses %p", (v) => expect(isCssColour(v)).toBe(false));
});

describe("settings", () => {
  test("every broken rule is one problem naming its attribute", () => {
    const problems = inputProblems({ name: "x".repeat(101), text: "junk", link: 3, hideTitle: "true", forceLoop: false, trackPlayed: "#fff" });
    expect(problems.map((p) => [p.kind, p.name])).toEqual([
      ["invalid-attribute", "name"], ["invalid-attribute", "text"], ["invalid-attribute", "link"], ["invalid-attribute", "hideTitle"],
    ]);
    expect(inputProblems({ name: "x".repeat(100), text: "rgb(1, 2, 3)", enableApi: false })).toEqual([]);
  });

  test("picks only given settings, trimmed; stored JSON is read over the defaults", () => {
    expect(pickSettings({ name: "n", text: " #fff ", hideTitle: true })).toEqual({ text: "#fff", hideTitle: true });
    expect(readSettings("{}")).toEqual(DEFAULT_SETTINGS);
    expect(readSettings(JSON.stringify({ link: "#123", forceLoop: true, bogus: 1, text: 5 }))).toEqual({ ...DEFAULT_SETTINGS, link: "#123", forceLoop: true });
  });
});

describe("imageSize", () => {
  const png = (w: number, h: number) => {
    const b = new Uint8Array(33);
    b.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
    new DataView(b.buffer).setUint32(16, w);
    new DataView(b.buffer).setUint32(20, h);
    return b;
  };
  // SOI, an APP0 segment, a fill byte, then SOF2 (progressive) with the size.
  const jpeg = (w: number, h: number) => new Uint8Array([
    0xff, 0xd8, 0xff, 0xe0, 0x00, 0x06, 0x4a, 0x46, 0x49, 0x46, 0xff, 0xff, 0xc2, 0x00, 0x0b, 0x08, h >> 8, h & 0xff, w >> 8, w & 0xff, 0x01, 0x01, 0x11, 0x00,
  ]);

  test("reads PNG and JPEG headers", () => {
    expect(imageSize(png(200, 100))).toEqual({ width: 200, height: 100 });
    expect(imageSize(jpeg(640, 360))).toEqual({ width: 640, height: 360 });
  });

  test("null for anything it cannot read", () => {
    expect(imageSize(new Uint8Array())).toBeNull();
    expect(imageSize(png(0, 10))).toBeNull();
    expect(imageSize(new TextEncoder().encode("not an image at all, just text"))).toBeNull();
    expect(imageSize(jpeg(10, 10).slice(0, 16))).toBeNull(); // cut inside the frame header
    expect(imageSize(new Uint8Array([0xff, 0xd8, 0xff, 0xda, 0, 2]))).toBeNull(); // scan before any frame header
    expect(imageSize(new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 0, 0, 0]))).toBeNull(); // bad segment length
  });
});

describe("player page with a theme", () => {
  const base = { title: "Demo", hlsUrl: "/vod/vi1/hls/manifest.m3u8", posterUrl: null, hlsJsUrl: "/assets/hls.js", live: false };

  test("the logo links out, escaped, and its origin is allowed as an image source", () => {
    const html = renderPlayerPage({ ...base, logo: { url: "https://cdn.example/assets/players/pl1/logo", link: `https://example.com/?a="><script>` } });
    expect(html).toContain(`<a id="logo" href="https://example.com/?a=&#34;&#62;&#60;script&#62;" target="_blank" rel="noopener noreferrer"><img src="https://cdn.example/assets/players/pl1/logo" alt=""></a>`);
    expect(html).toMatch(/img-src https:\/\/cdn\.example;/);
  });

  test("without a link (or with one that is not http) the logo is a plain image", () => {
    for (const link of [null, "javascript:alert(1)"]) {
      const html = renderPlayerPage({ ...base, logo: { url: "/assets/players/pl1/logo", link } });
      expect(html).toContain(`<div id="logo"><img src="/assets/players/pl1/logo" alt=""></div>`);
      expect(html).not.toContain("javascript:");
    }
    expect(renderPlayerPage(base)).not.toContain(`id="logo"`);
  });
});
