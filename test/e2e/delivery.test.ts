// Delivery end to end on real listeners: MP4 byte ranges and downloads, HLS caching, CORS, 404s,
// and each environment serving only its own videos.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { makeClip } from "../fixtures/media";
import { startTestAppliance, type TestAppliance } from "../helpers";
import { NO_RATE_LIMITS, parsePlaylist, uploadVideo, waitEncoded } from "./vod-support";

setDefaultTimeout(60_000);

let app: TestAppliance;
let project: { projectId: string; sandboxKey: string; productionKey: string };
let productionId: string;
let sandboxId: string;
let vod: string;
let mp4: Uint8Array;

beforeAll(async () => {
  const clip = await makeClip({ width: 320, height: 180, seconds: 2 });
  app = await startTestAppliance({ env: NO_RATE_LIMITS });
  project = await app.newProject("Delivery");
  [productionId, sandboxId] = await Promise.all([
    uploadVideo(app, project.productionKey, "production", clip, "Déjà vu: \"the\" clip/1"),
    uploadVideo(app, project.sandboxKey, "sandbox", clip, "sandbox clip"),
  ]);
  await Promise.all([
    waitEncoded(app, project.productionKey, productionId, "production"),
    waitEncoded(app, project.sandboxKey, sandboxId, "sandbox"),
  ]);
  vod = `${app.urls.production}/vod/${productionId}`;
  const full = await fetch(`${vod}/mp4/source.mp4`);
  expect(full.status).toBe(200);
  mp4 = await full.bytes();
});
afterAll(() => app?.close());

describe("MP4", () => {
  test("a whole GET announces ranges and its length", async () => {
    const res = await fetch(`${vod}/mp4/source.mp4`);
    expect(res.headers.get("accept-ranges")).toBe("bytes");
    expect(res.headers.get("content-type")).toBe("video/mp4");
    expect(res.headers.get("content-length")).toBe(String(mp4.byteLength));
    expect(res.headers.get("content-disposition")).toBeNull();
    expect(mp4.byteLength).toBeGreaterThan(1000);
    await res.arrayBuffer();
  });

  test("bytes=a-b answers 206 with exactly those bytes", async () => {
    const res = await fetch(`${vod}/mp4/source.mp4`, { headers: { range: "bytes=100-199" } });
    expect(res.status).toBe(206);
    expect(res.headers.get("content-range")).toBe(`bytes 100-199/${mp4.byteLength}`);
    expect(res.headers.get("content-length")).toBe("100");
    expect(await res.bytes()).toEqual(mp4.slice(100, 200));
  });

  test("an open range runs to the end, and an end past the size is clamped", async () => {
    const size = mp4.byteLength;
    const open = await fetch(`${vod}/mp4/source.mp4`, { headers: { range: `bytes=${size - 10}-` } });
    expect(open.status).toBe(206);
    expect(open.headers.get("content-range")).toBe(`bytes ${size - 10}-${size - 1}/${size}`);
    expect(await open.bytes()).toEqual(mp4.slice(size - 10));
    const clamped = await fetch(`${vod}/mp4/source.mp4`, { headers: { range: `bytes=0-${size * 2}` } });
    expect(clamped.status).toBe(206);
    expect(clamped.headers.get("content-range")).toBe(`bytes 0-${size - 1}/${size}`);
    expect((await clamped.bytes()).byteLength).toBe(size);
  });

  test("a suffix range gives the last bytes", async () => {
    const res = await fetch(`${vod}/mp4/source.mp4`, { headers: { range: "bytes=-500" } });
    expect(res.status).toBe(206);
    expect(res.headers.get("content-range")).toBe(`bytes ${mp4.byteLength - 500}-${mp4.byteLength - 1}/${mp4.byteLength}`);
    expect(await res.bytes()).toEqual(mp4.slice(mp4.byteLength - 500));
  });

  test("an unsatisfiable range is 416 with the size", async () => {
    for (const range of [`bytes=${mp4.byteLength}-`, `bytes=${mp4.byteLength + 10}-${mp4.byteLength + 20}`, "bytes=-0", "bytes=50-10"]) {
      const res = await fetch(`${vod}/mp4/source.mp4`, { headers: { range } });
      expect({ range, status: res.status }).toEqual({ range, status: 416 });
      expect(res.headers.get("content-range")).toBe(`bytes */${mp4.byteLength}`);
      await res.arrayBuffer();
    }
  });

  test("a range in another unit, or several ranges, are ignored: the whole file (RFC 9110 §14.2)", async () => {
    for (const range of ["items=0-5", "bytes=0-1,5-6"]) {
      const res = await fetch(`${vod}/mp4/source.mp4`, { headers: { range } });
      expect({ range, status: res.status }).toEqual({ range, status: 200 });
      expect((await res.bytes()).byteLength).toBe(mp4.byteLength);
    }
  });

  test("HEAD gives the headers of the GET", async () => {
    const res = await fetch(`${vod}/mp4/source.mp4`, { method: "HEAD", headers: { range: "bytes=0-9" } });
    expect(res.status).toBe(206);
    expect(res.headers.get("content-length")).toBe("10");
    expect(res.headers.get("content-range")).toBe(`bytes 0-9/${mp4.byteLength}`);
  });

  test("?dl=1 downloads it as an attachment named after the title", async () => {
    const res = await fetch(`${vod}/mp4/source.mp4?dl=1`);
    expect(res.status).toBe(200);
    const disposition = res.headers.get("content-disposition")!;
    expect(disposition).toStartWith("attachment;");
    expect(disposition).toContain(`filename*=UTF-8''${encodeURIComponent("Déjà vu the clip1")}.mp4`);
    expect(disposition).not.toMatch(/filename="[^"]*"[^;]*"/); // quotes in the title cannot break the header
    expect((await res.bytes()).byteLength).toBe(mp4.byteLength);
    // Titles beyond Latin-1 (a header value cannot carry them raw) still download.
    const title = "日本語のビデオ 🎬 ".repeat(12);
    expect((await app.api(project.productionKey, "PATCH", `/videos/${productionId}`, { title }, "production")).status).toBe(200);
    const intl = await fetch(`${vod}/mp4/source.mp4?dl=1`);
    expect(intl.status).toBe(200);
    const header = intl.headers.get("content-disposition")!;
    expect(header).toMatch(/^attachment; filename="[\x20-\x7e]+\.mp4"; filename\*=UTF-8''[^\s]+\.mp4$/);
    const encoded = /filename\*=UTF-8''(.+)\.mp4$/.exec(header)![1];
    expect(decodeURIComponent(encoded)).toStartWith("日本語のビデオ");
    await intl.arrayBuffer();
    await app.api(project.productionKey, "PATCH", `/videos/${productionId}`, { title: "Déjà vu: \"the\" clip/1" }, "production");
    // Ranges still work on downloads (resumable).
    const part = await fetch(`${vod}/mp4/source.mp4?dl=1`, { headers: { range: "bytes=0-9" } });
    expect(part.status).toBe(206);
    expect(part.headers.get("content-disposition")).toStartWith("attachment;");
    await part.arrayBuffer();
  });
});

describe("HLS", () => {
  test("segments are cached forever, playlists briefly, the master not at all", async () => {
    const master = await fetch(`${vod}/hls/manifest.m3u8`);
    expect(master.status).toBe(200);
    expect(master.headers.get("cache-control")).not.toContain("immutable");
    const [first] = (await master.text()).split("\n").filter((l) => l && !l.startsWith("#"));
    const playlistUrl = `${vod}/hls/${first}`;
    const playlist = await fetch(playlistUrl);
    expect(playlist.status).toBe(200);
    expect(playlist.headers.get("content-type")).toBe("application/vnd.apple.mpegurl");
    expect(playlist.headers.get("cache-control")).not.toContain("immutable");
    const { segments } = parsePlaylist(await playlist.text());
    const segment = await fetch(new URL(segments[0].uri, playlistUrl));
    expect(segment.status).toBe(200);
    expect(segment.headers.get("content-type")).toBe("video/mp2t");
    expect(segment.headers.get("cache-control")).toContain("immutable");
    expect(segment.headers.get("cache-control")).toContain("max-age=31536000");
    expect((await segment.bytes())[0]).toBe(0x47); // MPEG-TS sync byte
  });

  test("unknown qualities and files, and path tricks, are 404", async () => {
    for (const path of ["1080p/index.m3u8", "240p/seg_99999.ts", "240p/index.txt", "240p/..%2F..%2Fsource", "..%2Fsource/index.m3u8", "240p/.hidden.ts"]) {
      const res = await fetch(`${vod}/hls/${path}`);
      expect({ path, status: res.status }).toEqual({ path, status: 404 });
      await res.arrayBuffer();
    }
  });
});

describe("every delivery URL", () => {
  const paths = (id: string) => [`/vod/${id}`, `/vod/${id}/hls/manifest.m3u8`, `/vod/${id}/hls/240p/index.m3u8`, `/vod/${id}/mp4/source.mp4`, `/vod/${id}/thumbnail.jpg`];

  test("allows any origin (players embed it anywhere)", async () => {
    for (const path of paths(productionId).slice(1)) {
      const res = await fetch(app.urls.production + path, { headers: { origin: "https://example.com" } });
      expect({ path, status: res.status }).toEqual({ path, status: 200 });
      expect(res.headers.get("access-control-allow-origin")).toBe("*");
      await res.arrayBuffer();
    }
  });

  test("is 404 for an unknown video id", async () => {
    for (const path of paths("vi0000000000000000000000")) {
      const res = await fetch(app.urls.production + path);
      expect({ path, status: res.status }).toEqual({ path, status: 404 });
      await res.arrayBuffer();
    }
  });

  test("is 404 on the other environment's listener", async () => {
    for (const [base, id] of [[app.urls.production, sandboxId], [app.urls.sandbox, productionId]]) {
      for (const path of paths(id)) {
        const res = await fetch(base + path);
        expect({ path, status: res.status }).toEqual({ path, status: 404 });
        await res.arrayBuffer();
      }
    }
    // …while each serves its own.
    expect((await fetch(`${app.urls.sandbox}/vod/${sandboxId}/mp4/source.mp4`)).status).toBe(200);
  });

  test("serves no MP4 once mp4Support is turned off", async () => {
    const res = await app.api(project.productionKey, "PATCH", `/videos/${productionId}`, { mp4Support: false }, "production");
    expect(res.status).toBe(200);
    expect(((await res.json()) as { assets: Record<string, string> }).assets.mp4).toBeUndefined();
    expect((await fetch(`${vod}/mp4/source.mp4`)).status).toBe(404);
    await app.api(project.productionKey, "PATCH", `/videos/${productionId}`, { mp4Support: true }, "production");
    expect((await fetch(`${vod}/mp4/source.mp4`)).status).toBe(200);
  });
});

test("the player page names the video's own manifest and poster", async () => {
  const res = await fetch(vod);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toStartWith("text/html");
  const html = await res.text();
  expect(html).toContain(`${vod}/hls/manifest.m3u8`);
  expect(html).toContain(`${vod}/thumbnail.jpg`);
});
