// The player page: its HTML (escaping, iframe, CSP) and real playback in Debian's Chromium of an HLS
// stream made by ffmpeg at test time, through both hls.js and the browser's own HLS.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, normalize } from "node:path";
import type { Browser, Page } from "playwright-core";
import { chromiumAvailable, launchBrowser, screenshot } from "../../test/browser";
import { HLS_JS_PATH, HLS_JS_VERSION, hlsJsHeaders, hlsJsResponse } from "./hls-asset";
import { escapeHtml, iframeSnippet, renderPlayerPage } from "./player";

const EVIL = `</script><script>alert(1)</script>"'&`;
const base = { title: "Demo", hlsUrl: "/vod/vi1/hls/manifest.m3u8", posterUrl: null, hlsJsUrl: HLS_JS_PATH, live: false };

describe("player HTML", () => {
  test("escapes a malicious title everywhere it appears", () => {
    const html = renderPlayerPage({ ...base, title: EVIL });
    expect(html).not.toContain("<script>alert(1)");
    expect(html).not.toContain(EVIL);
    expect(html).toContain(`<title>${escapeHtml(EVIL)}</title>`);
    expect(html.match(/<script>/g)?.length).toBe(1);
    expect(html.match(/<\/script>/g)?.length).toBe(1);
  });

  test("embeds URLs and theme as JSON that cannot close the script element", () => {
    const html = renderPlayerPage({ ...base, hlsUrl: `/x.m3u8?a=${EVIL}`, theme: { text: "</style></script><b>", hideTitle: true } });
    const script = html.slice(html.indexOf("<script>") + 8, html.lastIndexOf("</script>"));
    expect(script).not.toMatch(/<\/|<!--|<script/i);
    expect(script).toContain("\\u003c/script\\u003e");
  });

  test("escapes the poster attribute and leaves out an absent poster", () => {
    expect(renderPlayerPage({ ...base, posterUrl: `/p.jpg" onerror="alert(1)` })).toContain(`poster="/p.jpg&#34; onerror=&#34;alert(1)"`);
    expect(renderPlayerPage(base)).not.toContain("poster=");
  });

  test("iframe snippet is api.video's exact string, escaped", () => {
    expect(iframeSnippet("https://v.example/vod/vi1")).toBe(
      `<iframe src="https://v.example/vod/vi1" width="100%" height="100%" frameborder="0" scrolling="no" allowfullscreen=""></iframe>`,
    );
    expect(iframeSnippet(`https://v.example/vod/vi1?token=a"><script>`)).toBe(
      `<iframe src="https://v.example/vod/vi1?token=a&#34;&#62;&#60;script&#62;" width="100%" height="100%" frameborder="0" scrolling="no" allowfullscreen=""></iframe>`,
    );
  });

  test("CSP hashes the inline script and style and allows only the given origins", () => {
    const html = renderPlayerPage({ ...base, hlsUrl: "https://cdn.example:8443/vod/vi1/hls/manifest.m3u8", posterUrl: "javascript:alert(1)", hlsJsUrl: "https://static.example/assets/hls.min.js?v=1" });
    const csp = html.match(/http-equiv="Content-Security-Policy" content="([^"]*)"/)?.[1].replaceAll("&#39;", "'") ?? "";
    const script = html.slice(html.indexOf("<script>") + 8, html.lastIndexOf("</script>"));
    const hash = new Bun.CryptoHasher("sha256").update(script).digest("base64");
    expect(csp).toContain(`script-src 'sha256-${hash}' https://static.example/assets/hls.min.js;`);
    expect(csp).toContain("connect-src https://cdn.example:8443;");
    expect(csp).toContain("img-src 'none'"); // a javascript: poster gets no source
    expect(csp).toStartWith("default-src 'none'");
    expect(csp).not.toContain("unsafe");
  });

  test("hls.js is served from a versioned, immutable path", () => {
    expect(HLS_JS_PATH).toBe(`/assets/hls-${HLS_JS_VERSION}.min.js`);
    expect(HLS_JS_VERSION).toMatch(/^\d+\.\d+\.\d+$/);
    expect(hlsJsHeaders()["cache-control"]).toContain("immutable");
  });
});

const ffmpeg = process.env.VIDHOST_FFMPEG || Bun.which("ffmpeg");

describe.skipIf(!chromiumAvailable() || !ffmpeg)("player in Chromium", () => {
  let dir = "";
  let server: ReturnType<typeof Bun.serve> | undefined;
  let browser: Browser | undefined;
  // Per-suite switches the tests flip: the "still encoding" video and the "not live yet" stream.
  const flags = { pendingReady: false, liveOn: false };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "vidhost-player-"));
    // 6 s of 320x240 H.264 + AAC, a keyframe every second so 1 s segments are possible.
    // prettier-ignore
    const args = [ffmpeg as string, "-hide_banner", "-loglevel", "error",
      "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25", "-f", "lavfi", "-i", "sine=frequency=440",
      "-t", "6", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-g", "25", "-keyint_min", "25", "-sc_threshold", "0",
      "-c:a", "aac", "-f", "hls", "-hls_time", "1", "-hls_playlist_type", "vod", "-hls_segment_filename", join(dir, "seg%d.ts"), join(dir, "index.m3u8")];
    const proc = Bun.spawn(args, { stdout: "ignore", stderr: "pipe" });
    if ((await proc.exited) !== 0) throw new Error(`ffmpeg failed: ${await new Response(proc.stderr).text()}`);
    const vod = await Bun.file(join(dir, "index.m3u8")).text();
    // The same segments as a live playlist still being written: no ENDLIST, no VOD type.
    const live = vod.replace("#EXT-X-PLAYLIST-TYPE:VOD\n", "").replace("#EXT-X-ENDLIST\n", "");

    server = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch(req) {
        const { pathname } = new URL(req.url);
        const origin = new URL(req.url).origin;
        const html = (opts: Partial<Parameters<typeof renderPlayerPage>[0]>) =>
          new Response(renderPlayerPage({ ...base, title: "Test <clip>", hlsJsUrl: HLS_JS_PATH, ...opts } as Parameters<typeof renderPlayerPage>[0]), {
            headers: { "content-type": "text/html; charset=utf-8" },
          });
        if (pathname === HLS_JS_PATH) return hlsJsResponse();
        // Absolute manifest URL (CSP lists the origin); the pending one is relative (CSP 'self').
        if (pathname === "/player/vod") return html({ hlsUrl: `${origin}/media/index.m3u8` });
        if (pathname === "/player/pending") return html({ hlsUrl: "/pending/index.m3u8" });
        if (pathname === "/player/live") return html({ hlsUrl: "/live/index.m3u8", live: true });
        if (pathname === "/pending/index.m3u8") return flags.pendingReady ? new Response(vod, m3u8) : new Response(null, { status: 202 });
        if (pathname === "/live/index.m3u8") return flags.liveOn ? new Response(live, m3u8) : new Response("not live", { status: 404 });
        const seg = pathname.match(/^\/(?:media|pending|live)\/(seg\d+\.ts|index\.m3u8)$/);
        if (seg) return new Response(Bun.file(normalize(join(dir, seg[1]))));
        return new Response("not found", { status: 404 });
      },
    });
    browser = await launchBrowser();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    server?.stop(true);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const m3u8 = { headers: { "content-type": "application/vnd.apple.mpegurl" } };

  /** A new page that records CSP violations and script errors, optionally denied native HLS. */
  async function openPage(path: string, options: { forceHlsJs?: boolean } = {}): Promise<{ page: Page; problems: string[] }> {
    const context = await browser!.newContext();
    const page = await context.newPage();
    const problems: string[] = [];
    page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
    page.on("console", (m) => {
      if (m.type() === "error") problems.push(`console: ${m.text()}`);
    });
    if (options.forceHlsJs) {
      // Behave like Firefox or an older Chrome: no native HLS, so the page must load hls.js.
      await page.addInitScript(() => {
        const original = HTMLMediaElement.prototype.canPlayType;
        HTMLMediaElement.prototype.canPlayType = function (type: string) {
          return /mpegurl/i.test(type) ? "" : original.call(this, type);
        };
      });
    }
    await page.goto(server!.url.origin + path);
    return { page, problems };
  }

  const currentTime = (page: Page) => page.$eval("video", (v) => (v as HTMLVideoElement).currentTime);
  const waitPastTime = (page: Page, seconds: number) =>
    page.waitForFunction((s) => (document.querySelector("video") as HTMLVideoElement).currentTime > s, seconds, { timeout: 30_000 });
  const waitForStatus = (page: Page, text: string) =>
    page.waitForFunction((t) => !!document.getElementById("status")?.textContent?.includes(t), text, { timeout: 30_000 });

  test("plays through hls.js where the browser has no native HLS", async () => {
    const { page, problems } = await openPage("/player/vod#autoplay", { forceHlsJs: true });
    await waitPastTime(page, 1);
    expect(await page.evaluate(() => document.body.dataset.engine)).toBe("hls.js");
    expect(await page.evaluate(() => document.getElementById("title")?.textContent)).toBe("Test <clip>");
    await screenshot(page, "player-hlsjs-playing");
    expect(problems).toEqual([]);
    await page.context().close();
  }, 60_000);

  test("plays natively where the browser can", async () => {
    const { page, problems } = await openPage("/player/vod#autoplay;hide-title");
    const native = await page.evaluate(() => document.createElement("video").canPlayType("application/vnd.apple.mpegurl") !== "");
    await waitPastTime(page, 1);
    expect(await page.evaluate(() => document.body.dataset.engine)).toBe(native ? "native" : "hls.js");
    expect(await page.$eval("#title", (e) => (e as HTMLElement).hidden)).toBe(true);
    expect(problems).toEqual([]);
    await page.context().close();
  }, 60_000);

  for (const forceHlsJs of [true, false]) {
    test(`#t=2 starts at 2 s (${forceHlsJs ? "hls.js" : "default engine"})`, async () => {
      const { page, problems } = await openPage("/player/vod#autoplay;t=2", { forceHlsJs });
      await waitPastTime(page, 2.3);
      // Nothing before 2 s was ever played.
      const firstPlayed = await page.$eval("video", (v) => (v as HTMLVideoElement).played.start(0));
      expect(firstPlayed).toBeGreaterThanOrEqual(1.95);
      expect(problems).toEqual([]);
      await page.context().close();
    }, 60_000);
  }

  test("#t=1,2 stops at 2 s", async () => {
    const { page } = await openPage("/player/vod#autoplay;t=1,2", { forceHlsJs: true });
    await page.waitForFunction(() => {
      const v = document.querySelector("video") as HTMLVideoElement;
      return v.paused && v.currentTime >= 2 && v.played.length > 0;
    }, undefined, { timeout: 30_000 });
    expect(await currentTime(page)).toBeLessThan(2.8);
    await page.context().close();
  }, 60_000);

  test("a 202 manifest shows the processing message, then plays once it answers 200", async () => {
    flags.pendingReady = false;
    const { page, problems } = await openPage("/player/pending#autoplay", { forceHlsJs: true });
    await waitForStatus(page, "This video is being processed…");
    expect(await page.evaluate(() => document.body.dataset.state)).toBe("processing");
    await screenshot(page, "player-processing");
    flags.pendingReady = true;
    await waitPastTime(page, 1);
    expect(await page.$eval("#status", (e) => (e as HTMLElement).hidden)).toBe(true);
    expect(problems).toEqual([]);
    await page.context().close();
  }, 60_000);

  test("live: waits for the broadcast while the playlist 404s, then plays near the live edge", async () => {
    flags.liveOn = false;
    const { page } = await openPage("/player/live#autoplay");
    await waitForStatus(page, "Waiting for the broadcast");
    expect(await page.evaluate(() => document.body.dataset.state)).toBe("waiting");
    flags.liveOn = true;
    await page.waitForFunction(() => document.body.dataset.state === "playing", undefined, { timeout: 30_000 });
    const first = await currentTime(page);
    await waitPastTime(page, first + 0.5);
    // hls.js (the live engine wherever MediaSource exists) starts ~3 s behind the 6 s edge, not at 0.
    expect(await page.evaluate(() => document.body.dataset.engine)).toBe("hls.js");
    expect(first).toBeGreaterThan(1.5);
    await page.context().close();
  }, 60_000);
});
