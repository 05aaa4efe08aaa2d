// Captions and chapters through the official Node client on a real server, their files at `src`,
// captions as HLS subtitle renditions, and the player page showing both in Chromium.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import ApiVideoClient from "@api.video/nodejs-client";
import { chromiumAvailable, launchBrowser, screenshot } from "../browser";
import { ffprobeJson, makeClip, mediaTempDir } from "../fixtures/media";
import { basic, startTestAppliance, waitFor, type TestAppliance } from "../helpers";
import { NO_RATE_LIMITS, uploadVideo, waitEncoded } from "./vod-support";

setDefaultTimeout(120_000);

const EN = "WEBVTT\n\n00:00:00.000 --> 00:00:02.000\nHello there\n\n00:00:02.000 --> 00:00:04.000\nGeneral Kenobi\n";
const FR = "WEBVTT\n\n00:00:00.000 --> 00:00:04.000\nBonjour à tous\n";
const CHAPTERS = "WEBVTT\n\n00:00:00.000 --> 00:00:02.000\nOpening &lt;titles&gt;\n\n00:00:02.000 --> 00:00:04.000\nThe end\n";

let app: TestAppliance;
let client: ApiVideoClient;
let key: string;
let videoId: string;

const fail = (promise: Promise<unknown>) => promise.then(() => { throw new Error("expected the call to fail"); }, (e) => e as { problemDetails: Record<string, unknown>; code?: number });

beforeAll(async () => {
  const clip = await makeClip({ width: 320, height: 240, seconds: 4 });
  app = await startTestAppliance({ env: NO_RATE_LIMITS });
  key = app.sandboxKey;
  client = new ApiVideoClient({ apiKey: key, baseUri: app.urls.sandbox });
  videoId = await uploadVideo(app, key, "sandbox", clip, "Captioned");
  await waitEncoded(app, key, videoId, "sandbox");
});
afterAll(() => app?.close());

async function raw(method: string, path: string, body?: BodyInit, contentType?: string) {
  const headers: Record<string, string> = { authorization: basic(key) };
  if (contentType) headers["content-type"] = contentType;
  return fetch(app.urls.sandbox + path, { method, headers, body });
}

describe("captions through the Node client", () => {
  test("upload, get, list, default, delete", async () => {
    const en = await client.captions.upload(videoId, "en", Buffer.from(EN));
    expect(en).toMatchObject({ uri: `/videos/${videoId}/captions/en`, src: `${app.urls.sandbox}/vod/${videoId}/captions/en.vtt`, srclang: "en", languageName: "English", _default: false });

    // A file path: the client names the form field after the file; any field name is taken.
    const path = join(mediaTempDir(), "subs.fr-CA.vtt");
    writeFileSync(path, FR);
    const fr = await client.captions.upload(videoId, "fr-ca", path);
    expect(fr).toMatchObject({ srclang: "fr-CA", languageName: "français canadien", uri: `/videos/${videoId}/captions/fr-CA` });

    expect(await client.captions.get(videoId, "fr-CA")).toMatchObject({ srclang: "fr-CA", _default: false });
    const list = await client.captions.list({ videoId });
    expect(list.data.map((c) => c.srclang)).toEqual(["en", "fr-CA"]);
    expect(list.pagination).toMatchObject({ itemsTotal: 2, currentPage: 1, pagesTotal: 1 });
    const page2 = await client.captions.list({ videoId, currentPage: 2, pageSize: 1 });
    expect(page2.data.map((c) => c.srclang)).toEqual(["fr-CA"]);

    // One default per video: setting another moves it.
    expect((await client.captions.update(videoId, "en", { _default: true }))._default).toBe(true);
    expect((await client.captions.update(videoId, "fr-CA", { _default: true }))._default).toBe(true);
    expect((await client.captions.get(videoId, "en"))._default).toBe(false);
    expect((await client.captions.list({ videoId })).data.filter((c) => c._default).map((c) => c.srclang)).toEqual(["fr-CA"]);

    // Served at src, byte for byte, with a VTT type.
    const served = await fetch(fr.src!);
    expect(served.status).toBe(200);
    expect(served.headers.get("content-type")).toBe("text/vtt; charset=utf-8");
    expect(served.headers.get("access-control-allow-origin")).toBe("*");
    expect(await served.text()).toBe(FR);

    // Re-uploading replaces the file and keeps the default flag.
    const again = await client.captions.upload(videoId, "fr-CA", Buffer.from(FR.replace("Bonjour", "Salut")));
    expect(again._default).toBe(true);
    expect(await (await fetch(fr.src!)).text()).toContain("Salut à tous");

    await client.captions.delete(videoId, "fr-CA");
    expect((await fail(client.captions.get(videoId, "fr-CA"))).problemDetails).toMatchObject({ status: 404, name: "language" });
    expect((await fetch(fr.src!)).status).toBe(404);
    expect((await fail(client.captions.delete(videoId, "fr-CA"))).problemDetails.status).toBe(404);
  });

  test("a bad language tag is 400 invalid-attribute", async () => {
    for (const [tag, detail] of [
      ["en_US", 'The "language" attribute must contain only letters and dashes (for example "fr", "fr-BE").'],
      ["xx", 'The "language" attribute is not valid.'],
    ]) {
      const err = await fail(client.captions.upload(videoId, tag, Buffer.from(EN)));
      expect(err.problemDetails).toMatchObject({ status: 400, type: "https://docs.api.video/reference/invalid-attribute", name: "language", detail });
      expect((await fail(client.captions.get(videoId, tag))).problemDetails.status).toBe(400);
    }
  });

  test("malformed VTT is accepted; unknown videos and missing files are refused", async () => {
    const other = (await client.videos.create({ title: "no source" })).videoId;
    const caption = await client.captions.upload(other, "de", Buffer.from("this is not WebVTT"));
    expect(caption.srclang).toBe("de");
    expect(await (await fetch(caption.src!)).text()).toBe("this is not WebVTT");
    expect((await fail(client.captions.upload("vi0000000000000000000000", "en", Buffer.from(EN)))).problemDetails).toMatchObject({ status: 404, name: "videoId" });
    const empty = await raw("POST", `/videos/${other}/captions/en`, new FormData());
    expect(empty.status).toBe(400);
    expect(((await empty.json()) as { type: string }).type).toEndWith("/uploaded-file-no-file");
    // Another project's video is unknown.
    const stranger = await app.newProject("stranger");
    const strangerClient = new ApiVideoClient({ apiKey: stranger.sandboxKey, baseUri: app.urls.sandbox });
    expect((await fail(strangerClient.captions.list({ videoId: other }))).problemDetails.status).toBe(404);
    // Deleting the video removes its captions and their files.
    await client.videos.delete(other);
    expect((await fetch(caption.src!)).status).toBe(404);
  });
});

describe("captions in HLS", () => {
  test("every caption is a subtitle rendition of the master playlist, the default one DEFAULT=YES", async () => {
    await client.captions.upload(videoId, "en", Buffer.from(EN));
    await client.captions.upload(videoId, "de", Buffer.from("WEBVTT\n\n00:00:00.000 --> 00:00:04.000\nHallo\n"));
    await client.captions.update(videoId, "de", { _default: true });
    const master = await (await fetch(`${app.urls.sandbox}/vod/${videoId}/hls/manifest.m3u8`)).text();
    const media = master.split("\n").filter((l) => l.startsWith("#EXT-X-MEDIA:"));
    expect(media).toEqual([
      '#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="Deutsch",LANGUAGE="de",DEFAULT=YES,AUTOSELECT=YES,FORCED=NO,URI="../captions/de.m3u8"',
      '#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="English",LANGUAGE="en",DEFAULT=NO,AUTOSELECT=YES,FORCED=NO,URI="../captions/en.m3u8"',
    ]);
    for (const line of master.split("\n").filter((l) => l.startsWith("#EXT-X-STREAM-INF:"))) expect(line).toEndWith(',SUBTITLES="subs"');

    const playlistUrl = new URL("../captions/en.m3u8", `${app.urls.sandbox}/vod/${videoId}/hls/manifest.m3u8`).href;
    const playlist = await fetch(playlistUrl);
    expect(playlist.headers.get("content-type")).toBe("application/vnd.apple.mpegurl");
    const lines = (await playlist.text()).trim().split("\n");
    expect(lines).toEqual(["#EXTM3U", "#EXT-X-VERSION:3", "#EXT-X-TARGETDURATION:4", "#EXT-X-MEDIA-SEQUENCE:0", "#EXT-X-PLAYLIST-TYPE:VOD", expect.stringMatching(/^#EXTINF:4\.\d{3},$/), "en.hls.vtt", "#EXT-X-ENDLIST"]);

    // The segment carries the MPEG-TS start of the video segments, so cue 0 is the first frame.
    const vtt = await (await fetch(new URL("en.hls.vtt", playlistUrl).href)).text();
    const map = /^X-TIMESTAMP-MAP=MPEGTS:(\d+),LOCAL:00:00:00\.000$/m.exec(vtt);
    expect(map).not.toBeNull();
    const segment = join(app.dataDir, "media", app.projectId, "sandbox", "videos", videoId, "hls", "240p", "seg_00000.ts");
    const probed = await ffprobeJson(segment);
    const start = Math.min(...probed.streams.map((s) => Number(s.start_time)));
    expect(Math.abs(Number(map![1]) / 90_000 - start)).toBeLessThan(0.002);
    expect(vtt.split("\n")[0]).toBe("WEBVTT");
    expect(vtt).toContain("00:00:02.000 --> 00:00:04.000\nGeneral Kenobi");

    await client.captions.delete(videoId, "de");
    await client.captions.delete(videoId, "en");
    const bare = await (await fetch(`${app.urls.sandbox}/vod/${videoId}/hls/manifest.m3u8`)).text();
    expect(bare).not.toContain("EXT-X-MEDIA");
    expect(bare).not.toContain("SUBTITLES=");
  });
});

describe("chapters through the Node client", () => {
  test("upload, get, list, delete, served at src, listed on the player page", async () => {
    const chapter = await client.chapters.upload(videoId, "en", Buffer.from(CHAPTERS));
    expect(chapter).toEqual({ uri: `/videos/${videoId}/chapters/en`, src: `${app.urls.sandbox}/vod/${videoId}/chapters/en.vtt`, language: "en" });
    const fr = await client.chapters.upload(videoId, "fr", Buffer.from(CHAPTERS.replace("The end", "La fin")));
    expect(await client.chapters.get(videoId, "fr")).toEqual(fr);
    const list = await client.chapters.list({ videoId });
    expect(list.data.map((c) => c.language)).toEqual(["en", "fr"]);
    expect(list.pagination.itemsTotal).toBe(2);

    const served = await fetch(chapter.src!);
    expect(served.headers.get("content-type")).toBe("text/vtt; charset=utf-8");
    expect(await served.text()).toBe(CHAPTERS);

    const page = await (await fetch(`${app.urls.sandbox}/vod/${videoId}`)).text();
    expect(page).toContain('<nav id="chapters"');
    expect(page).toContain("Opening &#60;titles&#62;"); // escaped
    expect(page).toContain("<time>0:02</time>The end");

    expect((await fail(client.chapters.upload(videoId, "e n", Buffer.from(CHAPTERS)))).problemDetails).toMatchObject({ status: 400, name: "language" });
    await client.chapters.delete(videoId, "fr");
    expect((await fail(client.chapters.get(videoId, "fr"))).problemDetails.status).toBe(404);
    expect((await fetch(fr.src!)).status).toBe(404);
  });
});

describe.skipIf(!chromiumAvailable())("the player page in Chromium", () => {
  test("shows the captions as a text track (hls.js) and lists chapters that seek", async () => {
    await client.captions.upload(videoId, "en", Buffer.from(EN));
    await client.captions.update(videoId, "en", { _default: true });
    await client.chapters.upload(videoId, "en", Buffer.from(CHAPTERS));
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage();
      const problems: string[] = [];
      page.on("pageerror", (e) => problems.push(e.message));
      // Firefox-like: no native HLS, so hls.js reads the subtitle rendition from the master playlist.
      await page.addInitScript(() => {
        const original = HTMLMediaElement.prototype.canPlayType;
        HTMLMediaElement.prototype.canPlayType = function (type: string) {
          return /mpegurl/i.test(type) ? "" : original.call(this, type);
        };
      });
      await page.goto(`${app.urls.sandbox}/vod/${videoId}#autoplay`);
      const track = await waitFor("a showing caption track with cues", () => page.evaluate(() => {
        const t = Array.from(document.querySelector("video")!.textTracks).find((x) => x.mode === "showing" && (x.cues?.length ?? 0) > 0);
        return t ? { language: t.language, label: t.label, cues: Array.from(t.cues!).map((c) => (c as VTTCue).text) } : null;
      }), 30_000, 100);
      expect(track).toEqual({ language: "en", label: "English", cues: ["Hello there", "General Kenobi"] });

      await page.click("#chapters-toggle");
      expect(await page.$$eval("#chapter-list button", (bs) => bs.map((b) => b.textContent))).toEqual(["0:00Opening <titles>", "0:02The end"]);
      await page.click('#chapter-list button[data-chapter="1"]');
      await waitFor("seek to the second chapter", () => page.evaluate(() => document.querySelector("video")!.currentTime >= 2), 10_000, 50);
      await waitFor("second chapter marked current", () => page.$eval('#chapter-list button[data-chapter="1"]', (b) => b.getAttribute("aria-current") === "true"), 10_000, 50);
      await screenshot(page, "player-captions-chapters");
      expect(problems).toEqual([]);
    } finally {
      await browser.close();
    }
  });
});
