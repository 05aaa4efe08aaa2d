// A private video's player page (`assets.player`, with its single-use token) plays in Debian's
// Chromium through hls.js and the default engine: the page spends the token and its own manifest,
// rendition, segment, subtitle and poster fetches ride on the session it embeds.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Browser } from "playwright-core";
import ApiVideoClient from "@api.video/nodejs-client";
import { HLS_JS_PATH } from "../../src/delivery/hls-asset";
import { chromiumAvailable, launchBrowser, screenshot } from "../browser";
import { makeClip } from "../fixtures/media";
import { startTestAppliance, waitFor, type TestAppliance } from "../helpers";
import { NO_RATE_LIMITS, uploadVideo, waitEncoded } from "./vod-support";

setDefaultTimeout(90_000);

describe.skipIf(!chromiumAvailable())("a private video's player page in Chromium", () => {
  let app: TestAppliance;
  let browser: Browser;
  let client: ApiVideoClient;
  let videoId: string;

  beforeAll(async () => {
    const clip = await makeClip({ width: 640, height: 360, seconds: 4 });
    [app, browser] = await Promise.all([startTestAppliance({ env: NO_RATE_LIMITS }), launchBrowser()]);
    const project = await app.newProject("Private player");
    client = new ApiVideoClient({ apiKey: project.productionKey, baseUri: app.urls.production });
    videoId = await uploadVideo(app, project.productionKey, "production", clip, "Private <player>", { public: false });
    await waitEncoded(app, project.productionKey, videoId, "production");
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  for (const forceHlsJs of [true, false]) {
    test(`plays from assets.player alone (${forceHlsJs ? "hls.js" : "default engine"})`, async () => {
      const { player } = (await client.videos.get(videoId)).assets!;
      expect(player).toContain("?token=");
      const page = await (await browser.newContext()).newPage();
      const problems: string[] = [];
      const failed: string[] = [];
      page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
      page.on("console", (m) => m.type() === "error" && !m.location().url.endsWith("/favicon.ico") && problems.push(`console: ${m.text()}`));
      page.on("response", (r) => r.status() >= 400 && !r.url().endsWith("/favicon.ico") && failed.push(`${r.status()} ${r.url()}`));
      if (forceHlsJs) {
        await page.addInitScript(() => {
          const original = HTMLMediaElement.prototype.canPlayType;
          HTMLMediaElement.prototype.canPlayType = function (type: string) {
            return /mpegurl/i.test(type) ? "" : original.call(this, type);
          };
        });
      }
      await page.goto(`${player}#autoplay`);
      await waitFor("currentTime > 1.5", async () => (await page.$eval("video", (v) => (v as HTMLVideoElement).currentTime)) > 1.5, 30_000, 100);
      const poster = await page.$eval("video", (v) => (v as HTMLVideoElement).poster);
      expect(poster).toMatch(new RegExp(`/vod/${videoId}/thumbnail\\.jpg\\?avh=[0-9a-f-]{36}$`));
      if (forceHlsJs) expect(await page.evaluate(() => document.body.dataset.engine)).toBe("hls.js");
      await screenshot(page, `private-player-${forceHlsJs ? "hlsjs" : "default"}`);
      expect(problems).toEqual([]);
      expect(failed).toEqual([]);
      await page.context().close();
      // The page spent its token.
      expect((await fetch(player!)).status).toBe(404);
    });
  }

  test("hls.js plays the tokenised assets.hls directly, on another origin", async () => {
    const { hls } = (await client.videos.get(videoId)).assets!;
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${app.urls.sandbox}/health`); // any other origin
    await page.addScriptTag({ url: `${app.urls.production}${HLS_JS_PATH}` });
    await page.evaluate((src) => {
      const video = document.createElement("video");
      video.muted = true;
      document.body.append(video);
      // @ts-expect-error hls.js's global from the script tag
      const player = new window.Hls();
      player.loadSource(src);
      player.attachMedia(video);
      return video.play().catch(() => undefined);
    }, hls!);
    await waitFor("currentTime > 1", async () => (await page.$eval("video", (v) => (v as HTMLVideoElement).currentTime)) > 1, 30_000, 100);
    await page.context().close();
    expect((await fetch(hls!)).status).toBe(404);
  });
});
