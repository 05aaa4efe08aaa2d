// Watermarks and clips end to end: the official Node client uploads, lists and deletes watermarks;
// videos created with `watermark` and `clip` come out with the image burned in where asked and
// trimmed to the clip (HLS, MP4, status, thumbnail), in production and in the sandbox beside its
// own mark; bad inputs are 400s naming the attribute.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import ApiVideoClient from "@api.video/nodejs-client";
import { ffprobeJson, makeClip, mediaTempDir } from "../fixtures/media";
import { basic, startTestAppliance, waitFor, type TestAppliance } from "../helpers";
import { makeImage, makeRemuxableClip, NO_RATE_LIMITS, regionDiff, rgbFrame, uploadSource, videoStatus, waitEncoded } from "./vod-support";

setDefaultTimeout(180_000);

let app: TestAppliance;
let project: { projectId: string; sandboxKey: string; productionKey: string };
let client: ApiVideoClient;

beforeAll(async () => {
  app = await startTestAppliance({ env: NO_RATE_LIMITS });
  project = await app.newProject("Watermarks");
  client = new ApiVideoClient({ apiKey: project.productionKey, baseUri: app.urls.production });
});
afterAll(() => app?.close());

const fail = (promise: Promise<unknown>) => promise.then(() => { throw new Error("expected the call to fail"); }, (e) => e);

/** POST /watermarks with raw multipart parts (name, bytes, file name). */
async function postWatermark(parts: [string, Blob | string, string?][]): Promise<Response> {
  const form = new FormData();
  for (const [name, value, filename] of parts) {
    if (typeof value === "string") form.append(name, value);
    else form.append(name, value, filename);
  }
  return fetch(`${app.urls.production}/watermarks`, { method: "POST", headers: { authorization: basic(project.productionKey) }, body: form });
}

const createVideo = (body: Record<string, unknown>, key = project.productionKey, env: "production" | "sandbox" = "production") =>
  app.api(key, "POST", "/videos", { title: "wm", ...body }, env);

describe("the official client on /watermarks", () => {
  test("upload, list (sorted, paged), delete, with and without response headers", async () => {
    const own = await client.watermarks.upload(await makeImage("png", "red"));
    expect(own.watermarkId).toMatch(/^watermark_[0-9A-Za-z]{22}$/);
    expect(own.createdAt).toBeInstanceOf(Date);
    const second = await client.watermarks.uploadWithResponseHeaders(await makeImage("jpg", "blue"));
    expect(second.headers["x-ratelimit-limit"]).toBeDefined();
    const ids = [own.watermarkId!, second.body.watermarkId!];

    expect((await client.watermarks.list({})).data.map((w) => w.watermarkId)).toEqual(ids);
    const desc = await client.watermarks.list({ sortBy: "createdAt", sortOrder: "desc" });
    expect(desc.data.map((w) => w.watermarkId)).toEqual([...ids].reverse());
    const page = await client.watermarks.listWithResponseHeaders({ pageSize: 1, currentPage: 2 });
    expect(page.headers["x-ratelimit-remaining"]).toBeDefined();
    expect(page.body.data.map((w) => w.watermarkId)).toEqual([ids[1]]);
    expect(page.body.pagination).toMatchObject({ currentPage: 2, pageSize: 1, pagesTotal: 2, itemsTotal: 2, currentPageItems: 1 });

    // Another project, and this project's sandbox, see none of them.
    const other = await app.newProject("Other");
    const stranger = new ApiVideoClient({ apiKey: other.productionKey, baseUri: app.urls.production });
    expect((await stranger.watermarks.list({})).data).toEqual([]);
    expect((await fail(stranger.watermarks.delete(ids[0]))).code).toBe(404);
    const sandbox = new ApiVideoClient({ apiKey: project.sandboxKey, baseUri: app.urls.sandbox });
    expect((await sandbox.watermarks.list({})).data).toEqual([]);

    await client.watermarks.delete(ids[0]);
    const deleted = await client.watermarks.deleteWithResponseHeaders(ids[1]);
    expect(deleted.headers["x-ratelimit-limit"]).toBeDefined();
    expect((await client.watermarks.list({})).data).toEqual([]);
    const again = await fail(client.watermarks.delete(ids[0]));
    expect([again.code, again.problemDetails?.name]).toEqual([404, "watermarkId"]);
  });

  test("what is not a whole JPEG or PNG is refused with a 400 naming the file", async () => {
    const dir = mediaTempDir();
    const png = await Bun.file(await makeImage("png", "red")).bytes();
    const jpg = await Bun.file(await makeImage("jpg", "red", "320x180")).bytes();
    writeFileSync(join(dir, "big.bin"), new Uint8Array(10 * 1024 * 1024 + 1));
    const cases: [string, [string, Blob | string, string?][], number, string][] = [
      ["a PNG named .jpg (the bytes decide)", [["file", new Blob([png]), "logo.jpg"]], 200, ""],
      ["text named .png", [["file", new Blob(["not an image"]), "logo.png"]], 400, "uploaded-file-invalid-file"],
      ["a PNG over 4096 px wide", [["file", Bun.file(await makeImage("png", "red", "4100x8")), "wide.png"]], 400, "uploaded-file-invalid-file"],
      ["a JPEG cut in half", [["file", new Blob([jpg.slice(0, jpg.length / 2)]), "cut.jpg"]], 400, "uploaded-file-invalid-file"],
      ["no file", [["name", "logo"]], 400, "uploaded-file-no-file"],
      ["two files", [["a", new Blob([png]), "a.png"], ["b", new Blob([png]), "b.png"]], 400, "uploaded-file-multiple-files"],
      ["over 10 MiB", [["file", Bun.file(join(dir, "big.bin")), "big.png"]], 400, "uploaded-file-too-large"],
    ];
    for (const [what, parts, status, kind] of cases) {
      const res = await postWatermark(parts);
      const body = (await res.json()) as { type?: string; name?: string; watermarkId?: string };
      expect([what, res.status]).toEqual([what, status]);
      if (status === 400) expect([what, body.type?.split("/").pop(), body.name]).toEqual([what, kind, "file"]);
      else expect(body.watermarkId).toMatch(/^watermark_/);
    }
    const json = await app.api(project.productionKey, "POST", "/watermarks", { file: "x" }, "production");
    expect(json.status).toBe(400);
  });

  test("list query errors", async () => {
    for (const query of ["sortBy=title", "sortOrder=up", "pageSize=0", "currentPage=0"]) {
      const res = await app.api(project.productionKey, "GET", `/watermarks?${query}`, undefined, "production");
      expect([query, res.status]).toEqual([query, 400]);
    }
  });
});

describe("watermark and clip inputs on POST /videos", () => {
  let watermarkId: string;
  let foreignId: string;
  beforeAll(async () => {
    watermarkId = (await client.watermarks.upload(await makeImage("png", "red"))).watermarkId!;
    const other = await app.newProject("Foreign");
    const stranger = new ApiVideoClient({ apiKey: other.productionKey, baseUri: app.urls.production });
    foreignId = (await stranger.watermarks.upload(await makeImage("png", "red"))).watermarkId!;
  });

  test.each([
    ["an unknown watermark id", { watermark: { id: "watermark_0000000000000000000000" } }, [["invalid-attribute", "watermark[id]"]]],
    ["another project's watermark id", () => ({ watermark: { id: foreignId } }), [["invalid-attribute", "watermark[id]"]]],
    ["a watermark without id", { watermark: { top: "10px" } }, [["attribute-required", "watermark[id]"]]],
    ["positions in other units", () => ({ watermark: { id: watermarkId, top: "1em", right: "x" } }), [["invalid-attribute", "watermark[top]"], ["invalid-attribute", "watermark[right]"]]],
    ["a width that is not a length", () => ({ watermark: { id: watermarkId, width: "wide" } }), [["invalid-attribute", "watermark[width]"]]],
    ["an opacity over 100%", () => ({ watermark: { id: watermarkId, opacity: "150%" } }), [["invalid-attribute", "watermark[opacity]"]]],
    ["a watermark that is not an object", { watermark: "watermark_x" }, [["invalid-attribute", "watermark"]]],
    ["an unknown watermark field", () => ({ watermark: { id: watermarkId, size: "1px" } }), [["invalid-attribute", "watermark[size]"]]],
    ["a malformed start", { clip: { startTimecode: "one minute" } }, [["invalid-attribute", "clip[startTimecode]"]]],
    ["an end before the start", { clip: { startTimecode: "00:00:05", endTimecode: "00:00:02.500" } }, [["invalid-attribute", "clip[endTimecode]"]]],
    ["minutes past 59", { clip: { endTimecode: "00:60:00" } }, [["invalid-attribute", "clip[endTimecode]"]]],
    ["a numeric timecode", { clip: { startTimecode: 5 } }, [["invalid-attribute", "clip[startTimecode]"]]],
    ["every problem at once", { language: "xx", clip: { startTimecode: "x" }, watermark: {} }, [["invalid-attribute", "language"], ["attribute-required", "watermark[id]"], ["invalid-attribute", "clip[startTimecode]"]]],
  ] as const)("%s → 400", async (_, body, want) => {
    const res = await createVideo(typeof body === "function" ? body() : body);
    const json = (await res.json()) as { problems: { type: string; name: string }[] };
    expect(res.status).toBe(400);
    expect(json.problems.map((p) => [p.type.split("/").pop(), p.name])).toEqual(want.map((w) => [...w]));
  });

  test("nothing is created by a refused request, and PATCH takes neither field", async () => {
    const before = (await client.videos.list({})).pagination.itemsTotal;
    await createVideo({ watermark: { id: watermarkId, top: "bad" } });
    expect((await client.videos.list({})).pagination.itemsTotal).toBe(before);
    const created = await client.videos.create({ title: "valid", watermark: { id: watermarkId }, clip: { startTimecode: "1", endTimecode: "2" } });
    for (const field of [{ watermark: { id: watermarkId } }, { clip: { startTimecode: "1" } }]) {
      const res = await app.api(project.productionKey, "PATCH", `/videos/${created.videoId}`, field, "production");
      expect(res.status).toBe(400);
    }
  });

  test("a clip starting after the end of the source fails encoding with the reason", async () => {
    const created = await createVideo({ clip: { startTimecode: "00:00:10" } });
    const { videoId } = (await created.json()) as { videoId: string };
    await uploadSource(app, project.productionKey, "production", videoId, await makeClip({ width: 160, height: 90, seconds: 1 }));
    const status = await waitFor("encoding failed", async () => {
      const s = await videoStatus(app, project.productionKey, videoId, "production");
      return s.encoding.qualities.some((q) => q.status === "failed") ? s : null;
    });
    expect(status.encoding.failureReason).toContain("after the end of the video");
  });
});

describe("a remuxable 720p source with a watermark and a clip", () => {
  const W = 320;
  const H = 180;
  let source: string;
  let videoId: string;
  let vod: string;

  beforeAll(async () => {
    source = await makeRemuxableClip(4);
    const mark = await client.watermarks.upload(await makeImage("png", "red"));
    // 5 % of 1280x720 = 64 px, 36 px in; 20 % wide = 256 px (144 px high): at 320x180, x 16–80, y 9–45.
    const created = await client.videos.create({
      title: "watermarked clip",
      watermark: { id: mark.watermarkId, top: "5%", left: "5%", width: "20%", opacity: "100%" },
      clip: { startTimecode: "00:00:01:00", endTimecode: "3.5" },
    });
    videoId = created.videoId;
    // Deleting the watermark after the video was given it changes nothing for the video.
    await client.watermarks.delete(mark.watermarkId!);
    await uploadSource(app, project.productionKey, "production", videoId, source);
    await waitEncoded(app, project.productionKey, videoId, "production", 150_000);
    vod = `${app.urls.production}/vod/${videoId}`;
  });

  test("every output is the 2.5 s clip, and the status says so", async () => {
    for (const output of [`${vod}/mp4/source.mp4`, `${vod}/hls/720p/index.m3u8`, `${vod}/hls/240p/index.m3u8`]) {
      const duration = Number((await ffprobeJson(output)).format.duration);
      expect([output, Math.abs(duration - 2.5) < 0.25]).toEqual([output, true]);
    }
    const status = await videoStatus(app, project.productionKey, videoId, "production");
    expect(status.encoding.metadata.duration).toBe(Math.round(2.5));
  });

  test("the image sits top-left on every rendition, the picture starts at 1 s, the rest is untouched", async () => {
    for (const output of [`${vod}/mp4/source.mp4`, `${vod}/hls/720p/index.m3u8`, `${vod}/hls/240p/index.m3u8`]) {
      // Output frame 10 is source frame 35 (25 fps, clip from 1 s).
      const [src, srcEarly, out] = await Promise.all([rgbFrame(source, 35, W, H), rgbFrame(source, 10, W, H), rgbFrame(output, 10, W, H)]);
      const mark = { x: 24, y: 15, w: 48, h: 24 };
      const rest = { x: W / 2, y: H / 2, w: W / 2 - 8, h: H / 2 - 8 };
      expect([output, regionDiff(src, out, W, mark) > 40]).toEqual([output, true]);
      expect([output, regionDiff(src, out, W, rest) < 8]).toEqual([output, true]);
      expect([output, regionDiff(srcEarly, out, W, rest) > regionDiff(src, out, W, rest) * 2]).toEqual([output, true]);
      // Red: the mark replaces the picture there.
      const i = ((mark.y + 10) * W + mark.x + 20) * 3;
      expect([output, out[i] > 180 && out[i + 1] < 80 && out[i + 2] < 80]).toEqual([output, true]);
    }
  });

  test("the automatic thumbnail is taken inside the clip", async () => {
    // 10 % in, at least 1 s: 1 s into the clip, 2 s into the source (frame 50).
    const [thumb, at2, at1] = await Promise.all([rgbFrame(`${vod}/thumbnail.jpg`, 0, W, H), rgbFrame(source, 50, W, H), rgbFrame(source, 25, W, H)]);
    const rest = { x: W / 2, y: 0, w: W / 2, h: H };
    expect(regionDiff(thumb, at2, W, rest)).toBeLessThan(10);
    expect(regionDiff(thumb, at1, W, rest)).toBeGreaterThan(regionDiff(thumb, at2, W, rest) * 2);
  });

  test("a copy (`source`: videoId) gets its own clip and watermark through the same encode", async () => {
    const mark = await client.watermarks.upload(await makeImage("png", "red"));
    const copy = await client.videos.create({
      title: "copied clip", source: videoId,
      watermark: { id: mark.watermarkId, bottom: "0", right: "0", width: "20%" },
      clip: { startTimecode: "00:00:00.500", endTimecode: "00:00:01.500" },
    });
    await waitEncoded(app, project.productionKey, copy.videoId, "production", 150_000);
    const mp4 = `${app.urls.production}/vod/${copy.videoId}/mp4/source.mp4`;
    expect(Math.abs(Number((await ffprobeJson(mp4)).format.duration) - 1)).toBeLessThan(0.25);
    // The copy's clip starts 1.5 s into the original source (frame 37, ±1); its mark is bottom right, not top left.
    const [src, out] = await Promise.all([rgbFrame(source, 37, W, H), rgbFrame(mp4, 0, W, H)]);
    expect(regionDiff(src, out, W, { x: W - 56, y: H - 30, w: 48, h: 24 })).toBeGreaterThan(40);
    expect(regionDiff(src, out, W, { x: 8, y: 8, w: 80, h: 40 })).toBeLessThan(8);
  });

  test("a refused copy leaves nothing behind", async () => {
    const mark = await client.watermarks.upload(await makeImage("png", "red"));
    const folders = () => readdirSync(app.ctx.storage.localDir([project.projectId, "production", "videos"])).sort();
    const before = [(await client.videos.list({})).pagination.itemsTotal, folders()];
    const res = await createVideo({ source: "vi0000000000000000000000", watermark: { id: mark.watermarkId } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { name: string }).name).toBe("source");
    // No row, and no folder holding a copy of the image.
    expect([(await client.videos.list({})).pagination.itemsTotal, folders()]).toEqual(before);
  });
});

describe("a sandbox video with its own watermark and a clip", () => {
  const W = 320;
  const H = 180;
  let source: string;
  let vod: string;

  beforeAll(async () => {
    source = await makeClip({ width: W, height: H, seconds: 36, fps: 10 });
    const sandbox = new ApiVideoClient({ apiKey: project.sandboxKey, baseUri: app.urls.sandbox });
    const mark = await sandbox.watermarks.upload(await makeImage("jpg", "blue", "32x32"));
    const created = await sandbox.videos.create({
      title: "sandbox watermarked clip",
      watermark: { id: mark.watermarkId, bottom: "10px", left: "10px", width: "initial", opacity: "80%" },
      clip: { startTimecode: "00:00:04" },
    });
    await uploadSource(app, project.sandboxKey, "sandbox", created.videoId, source);
    await waitEncoded(app, project.sandboxKey, created.videoId, "sandbox", 150_000);
    vod = `${app.urls.sandbox}/vod/${created.videoId}`;
  });

  test("the 32 s clip is still cut to 30 s, starting at 4 s", async () => {
    for (const output of [`${vod}/mp4/source.mp4`, `${vod}/hls/manifest.m3u8`]) {
      const duration = Number((await ffprobeJson(output)).format.duration);
      expect([output, duration > 29 && duration <= 30.5]).toEqual([output, true]);
    }
    const [src, out] = await Promise.all([rgbFrame(source, 40, W, H), rgbFrame(`${vod}/mp4/source.mp4`, 0, W, H)]);
    expect(regionDiff(src, out, W, { x: W / 4, y: 0, w: W / 2, h: H / 2 })).toBeLessThan(8);
  });

  test("both marks are burned in: the customer's bottom left, SANDBOX bottom right", async () => {
    const [src, out] = await Promise.all([rgbFrame(source, 40, W, H), rgbFrame(`${vod}/hls/240p/index.m3u8`, 0, W, H)]);
    // The 32x32 image at x 10–42, y 138–170.
    expect(regionDiff(src, out, W, { x: 14, y: 142, w: 24, h: 24 })).toBeGreaterThan(20);
    expect(regionDiff(src, out, W, { x: W - 80, y: H - 24, w: 64, h: 12 })).toBeGreaterThan(20);
    expect(regionDiff(src, out, W, { x: 60, y: 0, w: 200, h: 90 })).toBeLessThan(8);
  });
});
