// Private videos end to end with the official Node client: every answer's asset URLs carry fresh
// single-use tokens, a spent token 404s like an unknown id, `/session` and the tokenised manifest
// open `avh` sessions that reach renditions, segments, subtitles, thumbnail and MP4, ffmpeg plays
// the private `assets.hls` as any HLS client would, and PATCH public↔private takes effect at once.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import ApiVideoClient from "@api.video/nodejs-client";
import type { Clock } from "../../src/clock";
import { prunePrivateAccess } from "../../src/private/tokens";
import { ffprobeJson, makeClip } from "../fixtures/media";
import { startTestAppliance, type TestAppliance } from "../helpers";
import { NO_RATE_LIMITS, uploadVideo, waitEncoded } from "./vod-support";

setDefaultTimeout(90_000);

let offsetMs = 0;
const clock: Clock = { now: () => new Date(Date.now() + offsetMs) };
let app: TestAppliance;
let client: ApiVideoClient;
let key: string;
let videoId: string;
let vod: string;

beforeAll(async () => {
  app = await startTestAppliance({ clock, env: NO_RATE_LIMITS });
  const project = await app.newProject("Private");
  key = project.productionKey;
  client = new ApiVideoClient({ apiKey: key, baseUri: app.urls.production });
  const clip = await makeClip({ width: 320, height: 180, seconds: 2 });
  videoId = await uploadVideo(app, key, "production", clip, "Private clip", { public: false });
  await waitEncoded(app, key, videoId, "production");
  const caption = new FormData();
  caption.append("file", new Blob(["WEBVTT\n\n00:00.000 --> 00:01.500\nHello\n"]), "en.vtt");
  const res = await fetch(`${app.urls.production}/videos/${videoId}/captions/en`, { method: "POST", headers: { authorization: `Basic ${btoa(`${key}:`)}` }, body: caption });
  expect(res.status).toBe(200);
  vod = `${app.urls.production}/vod/${videoId}`;
});
afterAll(() => app?.close());

/** Fresh asset URLs: every read mints new tokens. */
const assets = async () => (await client.videos.get(videoId)).assets!;
const tokenOf = (url: string) => /\/token\/([0-9a-f-]{36})\//.exec(url)?.[1] ?? /[?&]token=([0-9a-f-]{36})/.exec(url)?.[1] ?? "";
const uris = (playlist: string) => [
  ...playlist.split("\n").filter((l) => l && !l.startsWith("#")),
  ...[...playlist.matchAll(/URI="([^"]+)"/g)].map((m) => m[1]),
];

describe("asset URLs", () => {
  test("carry a new token on every create, get, list and update answer, in api.video's shapes", async () => {
    const created = await client.videos.create({ title: "Born private", _public: false });
    const got = await client.videos.get(videoId);
    const listed = (await client.videos.list({ title: "Private clip" })).data[0];
    const updated = await client.videos.update(videoId, { description: "still private" });
    const all = [created, got, listed, updated].map((v) => v.assets!);
    for (const a of all) {
      expect(a.hls).toMatch(/\/vod\/vi\w{22}\/token\/[0-9a-f-]{36}\/hls\/manifest\.m3u8$/);
      expect(a.thumbnail).toMatch(/\/token\/[0-9a-f-]{36}\/thumbnail\.jpg$/);
      expect(a.mp4).toMatch(/\/token\/[0-9a-f-]{36}\/mp4\/source\.mp4$/);
      expect(a.player).toMatch(/\/vod\/vi\w{22}\?token=[0-9a-f-]{36}$/);
      expect(a.iframe).toContain(`src="${a.player}"`);
    }
    const tokens = all.flatMap((a) => [a.hls!, a.thumbnail!, a.mp4!, a.player!].map(tokenOf));
    expect(new Set(tokens).size).toBe(tokens.length);
  });
});

describe("single-use tokens", () => {
  test("assets.hls works once, then 404s exactly like an unknown video", async () => {
    const { hls } = await assets();
    const first = await fetch(hls!);
    expect(first.status).toBe(200);
    expect(await first.text()).toContain("#EXT-X-STREAM-INF");
    const again = await fetch(hls!);
    const unknown = await fetch(`${app.urls.production}/vod/vi0000000000000000000000/token/${tokenOf(hls!)}/hls/manifest.m3u8`);
    expect(again.status).toBe(404);
    expect(unknown.status).toBe(404);
    expect(await again.json()).toEqual(await unknown.json());
  });

  test("without a token or session every asset 404s", async () => {
    for (const path of ["", "/hls/manifest.m3u8", "/hls/240p/index.m3u8", "/thumbnail.jpg", "/mp4/source.mp4", "/captions/en.vtt", "/captions/en.m3u8"]) {
      expect([path, (await fetch(`${vod}${path}`)).status]).toEqual([path, 404]);
    }
    expect((await fetch(`${vod}/hls/manifest.m3u8?avh=00000000-0000-4000-8000-000000000000`)).status).toBe(404);
  });

  test("a token is only good for its own video", async () => {
    const other = await client.videos.create({ title: "Another private", _public: false });
    const token = tokenOf(other.assets!.hls!);
    expect((await fetch(`${vod}/token/${token}/hls/manifest.m3u8`)).status).toBe(404);
    expect((await fetch(`${app.urls.production}/vod/${other.videoId}/token/${token}/session`)).status).toBe(200);
  });

  test("the thumbnail and MP4 tokens work once each", async () => {
    const a = await assets();
    const thumb = await fetch(a.thumbnail!);
    expect(thumb.status).toBe(200);
    expect(thumb.headers.get("content-type")).toBe("image/jpeg");
    expect((await fetch(a.thumbnail!)).status).toBe(404);
    const mp4 = await fetch(a.mp4!);
    expect(mp4.status).toBe(200);
    expect((await mp4.bytes()).byteLength).toBeGreaterThan(1000);
    expect((await fetch(a.mp4!)).status).toBe(404);
  });

  test("HEAD and CORS preflight look without spending the token", async () => {
    const { hls } = await assets();
    expect((await fetch(hls!, { method: "HEAD" })).status).toBe(200);
    expect((await fetch(hls!, { method: "OPTIONS", headers: { origin: "https://site.example", "access-control-request-method": "GET" } })).status).toBe(204);
    expect((await fetch(hls!)).status).toBe(200);
    expect((await fetch(hls!, { method: "HEAD" })).status).toBe(404);
  });

  test("an unused token expires after 24 hours, and the prune removes it", async () => {
    const { hls } = await assets();
    offsetMs = 24 * 3600 * 1000 + 1000;
    try {
      expect((await fetch(hls!)).status).toBe(404);
      expect(prunePrivateAccess(app.ctx).tokens).toBeGreaterThan(0);
    } finally {
      offsetMs = 0;
    }
  });
});

describe("sessions", () => {
  test("/session spends the token; the session reaches the manifest (again and again), renditions, segments, thumbnail and MP4", async () => {
    const token = tokenOf((await assets()).thumbnail!);
    const res = await fetch(`${vod}/token/${token}/session`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json");
    const { session_token: avh } = (await res.json()) as { session_token: string };
    expect(avh).toMatch(/^[0-9a-f-]{36}$/);
    expect((await fetch(`${vod}/token/${token}/session`)).status).toBe(404);

    for (let i = 0; i < 2; i++) expect((await fetch(`${vod}/hls/manifest.m3u8?avh=${avh}`)).status).toBe(200);
    expect((await fetch(`${vod}/hls/manifest.m3u8?_=cache-buster&avh=${avh}`)).status).toBe(200); // players' own parameters are ignored
    const master = await (await fetch(`${vod}/hls/manifest.m3u8?avh=${avh}`)).text();
    for (const uri of uris(master)) expect(uri).toEndWith(`?avh=${avh}`);
    const rendition = uris(master).find((u) => u.includes("/hls/240p/"))!;
    const media = await fetch(new URL(rendition, vod));
    expect(media.status).toBe(200);
    const segment = uris(await media.text())[0];
    expect(segment).toMatch(new RegExp(`^/vod/${videoId}/hls/240p/[\\w-]+\\.ts\\?avh=${avh}$`));
    const seg = await fetch(new URL(segment, vod));
    expect(seg.status).toBe(200);
    expect(seg.headers.get("content-type")).toBe("video/mp2t");
    // The viewer's browser may keep a private video's files; a shared cache (a CDN) may not.
    expect(seg.headers.get("cache-control")).toBe("private, max-age=31536000, immutable");
    expect((await fetch(new URL(segment.replace(/\?.*/, ""), vod))).status).toBe(404);
    const thumbnail = await fetch(`${vod}/thumbnail.jpg?avh=${avh}`);
    expect([thumbnail.status, thumbnail.headers.get("cache-control")]).toEqual([200, "private, max-age=60"]);
    const mp4 = await fetch(`${vod}/mp4/source.mp4?avh=${avh}`, { headers: { range: "bytes=0-99" } });
    expect([mp4.status, mp4.headers.get("cache-control")]).toEqual([206, "private, max-age=3600"]);
    expect((await fetch(`${vod}/mp4/source.mp4?avh=${avh}`, { headers: { range: "bytes=100-199" } })).status).toBe(206);
  });

  test("a player following the tokenised manifest reaches every rendition, segment and subtitle (hls.js's way)", async () => {
    const { hls } = await assets();
    const master = await (await fetch(hls!)).text();
    const children = uris(master);
    expect(children.some((u) => u.includes("/captions/en.m3u8?avh="))).toBe(true);
    for (const child of children) {
      const playlistUrl = new URL(child, hls!);
      const playlist = await fetch(playlistUrl);
      expect([child, playlist.status]).toEqual([child, 200]);
      for (const leaf of uris(await playlist.text())) {
        const res = await fetch(new URL(leaf, playlistUrl));
        expect([leaf, res.status]).toEqual([leaf, 200]);
        await res.arrayBuffer();
      }
    }
  });

  test("ffmpeg's HLS client plays the private assets.hls by itself", async () => {
    const probe = await ffprobeJson((await assets()).hls!);
    expect(probe.streams.some((s) => s.codec_type === "video")).toBe(true);
    expect(Number(probe.format.duration)).toBeGreaterThan(1);
  });

  test("the player page spends its token and embeds a session for its own fetches", async () => {
    const { player } = await assets();
    const page = await fetch(player!);
    expect(page.status).toBe(200);
    expect(page.headers.get("cache-control")).toBe("private, no-store");
    const html = await page.text();
    const avh = /manifest\.m3u8\?avh=([0-9a-f-]{36})/.exec(html)?.[1];
    expect(avh).toBeString();
    expect(html).toContain(`thumbnail.jpg?avh=${avh}`);
    expect((await fetch(`${vod}/hls/manifest.m3u8?avh=${avh}`)).status).toBe(200);
    expect((await fetch(player!)).status).toBe(404);
  });
});

describe("captions and chapters", () => {
  test("their `src` carries a single-use token; the session (from /session or the manifest) reaches them too", async () => {
    const form = new FormData();
    form.append("file", new Blob(["WEBVTT\n\n00:00.000 --> 00:01.000\nOpening\n"]), "chapters.vtt");
    const up = await fetch(`${app.urls.production}/videos/${videoId}/chapters/en`, { method: "POST", headers: { authorization: `Basic ${btoa(`${key}:`)}` }, body: form });
    expect(up.status).toBe(200);
    const shape = (kind: string) => new RegExp(`^${vod}/token/[0-9a-f-]{36}/${kind}/en\\.vtt$`);
    const caption = await client.captions.get(videoId, "en");
    const chapter = await client.chapters.get(videoId, "en");
    expect(caption.src).toMatch(shape("captions"));
    expect(chapter.src).toMatch(shape("chapters"));
    expect((await client.captions.list({ videoId })).data[0].src).toMatch(shape("captions"));
    expect((await client.chapters.list({ videoId })).data[0].src).toMatch(shape("chapters"));
    // Each src works once, then 404s like an unknown id.
    for (const [src, text] of [[caption.src!, "Hello"], [chapter.src!, "Opening"]]) {
      const res = await fetch(src);
      expect([src, res.status]).toEqual([src, 200]);
      expect(res.headers.get("content-type")).toStartWith("text/vtt");
      expect(await res.text()).toContain(text);
      expect((await fetch(src)).status).toBe(404);
    }
    // Plain paths without a token or session stay closed.
    expect((await fetch(`${vod}/captions/en.vtt`)).status).toBe(404);
    expect((await fetch(`${vod}/chapters/en.vtt`)).status).toBe(404);
    // A session from /session, and one from the tokenised manifest, both reach them.
    const fromSession = ((await (await fetch(`${vod}/token/${tokenOf((await assets()).thumbnail!)}/session`)).json()) as { session_token: string }).session_token;
    const fromManifest = /avh=([0-9a-f-]{36})/.exec(await (await fetch((await assets()).hls!)).text())![1];
    for (const avh of [fromSession, fromManifest]) {
      expect((await fetch(`${vod}/captions/en.vtt?avh=${avh}`)).status).toBe(200);
      expect((await fetch(`${vod}/chapters/en.vtt?avh=${avh}`)).status).toBe(200);
    }
    // The subtitle playlist by token opens a session for the WebVTT file it names.
    const playlist = await fetch((await client.captions.get(videoId, "en")).src!.replace(/\.vtt$/, ".m3u8"));
    expect(playlist.status).toBe(200);
    const leaf = uris(await playlist.text())[0];
    expect(leaf).toMatch(new RegExp(`^/vod/${videoId}/captions/en\\.hls\\.vtt\\?avh=[0-9a-f-]{36}$`));
    expect((await fetch(new URL(leaf, vod))).status).toBe(200);
    // A public video's src stays plain.
    await client.videos.update(videoId, { _public: true });
    try {
      expect((await client.captions.get(videoId, "en")).src).toBe(`${vod}/captions/en.vtt`);
      expect((await client.chapters.get(videoId, "en")).src).toBe(`${vod}/chapters/en.vtt`);
    } finally {
      await client.videos.update(videoId, { _public: false });
    }
  });
});

describe("public ↔ private", () => {
  test("PATCH takes effect at once, both ways", async () => {
    const session = (await (await fetch(`${vod}/token/${tokenOf((await assets()).hls!)}/session`)).json()) as { session_token: string };
    const pub = await client.videos.update(videoId, { _public: true });
    expect(pub.assets!.hls).toBe(`${vod}/hls/manifest.m3u8`);
    expect(pub.assets!.player).toBe(vod);
    expect((await fetch(`${vod}/hls/manifest.m3u8`)).status).toBe(200);
    expect((await fetch(`${vod}/thumbnail.jpg`)).status).toBe(200);
    expect(await (await fetch(`${vod}/hls/manifest.m3u8`)).text()).not.toContain("avh=");
    const priv = await client.videos.update(videoId, { _public: false });
    expect(priv.assets!.hls).toContain("/token/");
    expect((await fetch(`${vod}/hls/manifest.m3u8`)).status).toBe(404);
    expect((await fetch(`${vod}/hls/manifest.m3u8?avh=${session.session_token}`)).status).toBe(200);
  });
});
