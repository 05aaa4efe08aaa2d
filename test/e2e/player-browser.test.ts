// The real appliance's player page in Debian's Chromium: an uploaded video plays (currentTime
// advances) through hls.js and natively, and a page opened mid-encode starts once it is playable.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { chromiumAvailable, launchBrowser, screenshot } from "../browser";
import { makeClip } from "../fixtures/media";
import { startTestAppliance, waitFor, type TestAppliance } from "../helpers";
import { NO_RATE_LIMITS, realTimeFfmpeg, uploadVideo, videoStatus, waitEncoded } from "./vod-support";

setDefaultTimeout(90_000);

describe.skipIf(!chromiumAvailable())("the player page in Chromium", () => {
  let app: TestAppliance;
  let browser: Browser;
  let project: { projectId: string; sandboxKey: string; productionKey: string };
  let videoId: string;

  beforeAll(async () => {
    const clip = await makeClip({ width: 640, height: 360, seconds: 4 });
    [app, browser] = await Promise.all([startTestAppliance({ env: NO_RATE_LIMITS }), launchBrowser()]);
    project = await app.newProject("Player");
    videoId = await uploadVideo(app, project.productionKey, "production", clip, "Player <test>");
    await waitEncoded(app, project.productionKey, videoId, "production");
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  /** A fresh page recording script errors; `forceHlsJs` hides native HLS as Firefox would. */
  async function open(url: string, forceHlsJs: boolean): Promise<{ page: Page; problems: string[] }> {
    const page = await (await browser.newContext()).newPage();
    const problems: string[] = [];
    page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
    // The browser's own /favicon.ico probe 404s (the page declares no icon): not the player's fault.
    page.on("console", (m) => m.type() === "error" && !m.location().url.endsWith("/favicon.ico") && problems.push(`console: ${m.text()} (${m.location().url})`));
    if (forceHlsJs) {
      await page.addInitScript(() => {
        const original = HTMLMediaElement.prototype.canPlayType;
        HTMLMediaElement.prototype.canPlayType = function (type: string) {
          return /mpegurl/i.test(type) ? "" : original.call(this, type);
        };
      });
    }
    await page.goto(url);
    return { page, problems };
  }

  /** Polls the <video>'s currentTime until it passes `seconds`. */
  const playsPast = (page: Page, seconds: number) =>
    waitFor(`currentTime > ${seconds}`, async () => (await page.$eval("video", (v) => (v as HTMLVideoElement).currentTime)) > seconds, 30_000, 100);

  for (const forceHlsJs of [true, false]) {
    test(`an uploaded video plays (${forceHlsJs ? "hls.js" : "default engine"})`, async () => {
      const { page, problems } = await open(`${app.urls.production}/vod/${videoId}#autoplay`, forceHlsJs);
      await playsPast(page, 1.5);
      const state = await page.$eval("video", (v) => {
        const video = v as HTMLVideoElement;
        return { width: video.videoWidth, height: video.videoHeight, error: video.error?.message ?? null, poster: video.poster };
      });
      expect(state.error).toBeNull();
      expect(state.height).toBeGreaterThanOrEqual(240);
      expect(state.poster).toBe(`${app.urls.production}/vod/${videoId}/thumbnail.jpg`);
      if (forceHlsJs) expect(await page.evaluate(() => document.body.dataset.engine)).toBe("hls.js");
      expect(await page.evaluate(() => document.getElementById("title")?.textContent)).toBe("Player <test>");
      await screenshot(page, `vod-player-${forceHlsJs ? "hlsjs" : "default"}`);
      expect(problems).toEqual([]);
      await page.context().close();
    });
  }

  test("the MP4 plays in a plain <video> from another origin", async () => {
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${app.urls.sandbox}/health`); // any other origin
    const mp4 = `${app.urls.production}/vod/${videoId}/mp4/source.mp4`;
    await page.evaluate((src) => {
      const v = document.createElement("video");
      v.muted = true;
      v.src = src;
      document.body.append(v);
      return v.play();
    }, mp4);
    await playsPast(page, 1);
    await page.context().close();
  });

  test("a page opened while the video encodes says so, then plays by itself", async () => {
    // Real-time ffmpeg in the sandbox (no instant remux): the video is unplayable for a few seconds.
    const slow = await startTestAppliance({ env: { ...NO_RATE_LIMITS, VIDHOST_FFMPEG: realTimeFfmpeg() } });
    try {
      const clip = await makeClip({ width: 320, height: 180, seconds: 3 });
      const id = await uploadVideo(slow, slow.sandboxKey, "sandbox", clip, "still encoding");
      await waitFor("encoding", async () => {
        const s = await videoStatus(slow, slow.sandboxKey, id, "sandbox");
        return s.encoding.qualities.some((q) => q.status === "encoding") && !s.encoding.playable;
      });
      const { page, problems } = await open(`${slow.urls.sandbox}/vod/${id}#autoplay`, true);
      await waitFor("processing state", () => page.evaluate(() => document.body.dataset.state === "processing"), 30_000, 100);
      await screenshot(page, "vod-player-processing");
      await playsPast(page, 1);
      expect((await videoStatus(slow, slow.sandboxKey, id, "sandbox")).encoding.playable).toBe(true);
      expect(problems).toEqual([]);
      await page.context().close();
    } finally {
      await slow.close();
    }
  });
});
