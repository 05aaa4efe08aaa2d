// A player theme on the real appliance's player page in Debian's Chromium: the logo loads (the CSP
// lets it in) and links out, a colour reaches the page's CSS, hideTitle and forceLoop take effect.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import ApiVideoClient from "@api.video/nodejs-client";
import type { Browser } from "playwright-core";
import { chromiumAvailable, launchBrowser, screenshot } from "../browser";
import { makeClip } from "../fixtures/media";
import { startTestAppliance, waitFor, type TestAppliance } from "../helpers";
import { makeImage, NO_RATE_LIMITS, uploadSource, waitEncoded } from "./vod-support";

setDefaultTimeout(90_000);

describe.skipIf(!chromiumAvailable())("a themed player page in Chromium", () => {
  let app: TestAppliance;
  let browser: Browser;

  beforeAll(async () => {
    [app, browser] = await Promise.all([startTestAppliance({ env: NO_RATE_LIMITS }), launchBrowser()]);
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  test("shows the logo with its link, applies a colour, hides the title, loops", async () => {
    const client = new ApiVideoClient({ apiKey: app.sandboxKey, baseUri: app.urls.sandbox });
    const theme = await client.playerThemes.create({ name: "Red", backgroundText: "rgb(255, 0, 0)", trackPlayed: "#00ff00", hideTitle: true, forceLoop: true });
    await client.playerThemes.uploadLogo(theme.playerId, await makeImage("png", "yellow", "120x60"), "https://example.com/brand");
    const clip = await makeClip({ width: 320, height: 180, seconds: 2 });
    const video = await client.videos.create({ title: "Themed video", playerId: theme.playerId });
    await uploadSource(app, app.sandboxKey, "sandbox", video.videoId, clip);
    await waitEncoded(app, app.sandboxKey, video.videoId, "sandbox");

    const page = await (await browser.newContext()).newPage();
    const problems: string[] = [];
    page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
    // A CSP refusal of the logo would show up here as a console error.
    page.on("console", (m) => m.type() === "error" && !m.location().url.endsWith("/favicon.ico") && problems.push(`console: ${m.text()}`));
    await page.goto(`${app.urls.sandbox}/vod/${video.videoId}#autoplay`);
    await waitFor("playing", () => page.evaluate(() => (document.querySelector("video") as HTMLVideoElement).currentTime > 0.5), 30_000, 100);
    await waitFor("logo loaded", () => page.$eval("#logo img", (img) => (img as HTMLImageElement).complete && (img as HTMLImageElement).naturalWidth > 0), 10_000, 50);

    const seen = await page.evaluate(() => {
      const logo = document.getElementById("logo") as HTMLAnchorElement;
      const img = logo.querySelector("img") as HTMLImageElement;
      const title = document.getElementById("title") as HTMLElement;
      const box = img.getBoundingClientRect();
      return {
        href: logo.href,
        target: logo.target,
        size: [img.naturalWidth, img.naturalHeight],
        visible: box.width > 0 && box.height > 0 && getComputedStyle(logo).display !== "none",
        titleHidden: title.hidden && getComputedStyle(title).display === "none",
        titleColour: getComputedStyle(title).color,
        trackPlayed: getComputedStyle(document.documentElement).getPropertyValue("--theme-trackPlayed").trim(),
        loop: (document.querySelector("video") as HTMLVideoElement).loop,
      };
    });
    expect(seen).toEqual({
      href: "https://example.com/brand", target: "_blank", size: [120, 60], visible: true,
      titleHidden: true, titleColour: "rgb(255, 0, 0)", trackPlayed: "#00ff00", loop: true,
    });
    await screenshot(page, "vod-player-themed");
    expect(problems).toEqual([]);
    await page.context().close();
  });
});
