// Thumbnails end to end: uploaded images, frames picked by timecode (before or after encoding,
// out of range → first frame), and an encode never overwriting a thumbnail chosen meanwhile.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import ApiVideoClient from "@api.video/nodejs-client";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { makeClip, makeNotAVideo, mediaTempDir, testMediaTools } from "../fixtures/media";
import { startTestAppliance, waitFor, type TestAppliance } from "../helpers";
import {
  NO_RATE_LIMITS, isJpeg, makeImage, realTimeFfmpeg, regionDiff, rgbFrame, uploadSource, uploadVideo, videoStatus, waitEncoded, type Env,
} from "./vod-support";

setDefaultTimeout(90_000);

const W = 320;
const H = 180;
const FULL = { x: 0, y: 0, w: W, h: H };

let app: TestAppliance;
let project: { projectId: string; sandboxKey: string; productionKey: string };
let clip: string;
let client: ApiVideoClient;

beforeAll(async () => {
  [app, clip] = await Promise.all([startTestAppliance({ env: NO_RATE_LIMITS }), makeClip({ width: W, height: H, seconds: 3 })]);
  project = await app.newProject("Thumbnails");
  client = new ApiVideoClient({ apiKey: project.productionKey, baseUri: app.urls.production });
});
afterAll(() => app?.close());

const thumbUrl = (a: TestAppliance, id: string, env: Env = "production") => `${env === "sandbox" ? a.urls.sandbox : a.urls.production}/vod/${id}/thumbnail.jpg`;
const thumbBytes = async (a: TestAppliance, id: string, env: Env = "production") => {
  const res = await fetch(thumbUrl(a, id, env));
  expect(res.status).toBe(200);
  return res.bytes();
};
/** How far the served thumbnail is from frame `n` of the clip (mean per-channel difference). */
const distanceToFrame = async (a: TestAppliance, id: string, n: number, env: Env = "production") => {
  const [thumb, frame] = await Promise.all([rgbFrame(thumbUrl(a, id, env), 0, W, H), rgbFrame(clip, n, W, H)]);
  return regionDiff(thumb, frame, W, FULL);
};

describe("uploaded thumbnails", () => {
  let videoId: string;
  beforeAll(async () => {
    videoId = (await client.videos.create({ title: "uploaded thumbnails" })).videoId;
  });

  test("a PNG is accepted and served as it was sent", async () => {
    const png = await makeImage("png", "red");
    const video = await client.videos.uploadThumbnail(videoId, png);
    expect(video.videoId).toBe(videoId);
    const res = await fetch(thumbUrl(app, videoId));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/png");
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(await res.bytes()).toEqual(await Bun.file(png).bytes());
  });

  test("a JPEG replaces it", async () => {
    const jpg = await makeImage("jpg", "blue");
    const res = await fetch(`${app.urls.production}/videos/${videoId}/thumbnail`, {
      method: "POST", headers: { authorization: `Basic ${btoa(`${project.productionKey}:`)}` }, body: formWith(jpg, "thumb.jpg"),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { assets: { thumbnail: string } }).assets.thumbnail).toBe(thumbUrl(app, videoId));
    const served = await fetch(thumbUrl(app, videoId));
    expect(served.headers.get("content-type")).toBe("image/jpeg");
    expect(await served.bytes()).toEqual(await Bun.file(jpg).bytes());
  });

  test("anything that is not an image is 400 and changes nothing", async () => {
    const before = await thumbBytes(app, videoId);
    for (const file of [makeNotAVideo(), clip]) {
      const res = await fetch(`${app.urls.production}/videos/${videoId}/thumbnail`, {
        method: "POST", headers: { authorization: `Basic ${btoa(`${project.productionKey}:`)}` }, body: formWith(file, "thumb.jpg"),
      });
      expect(res.status).toBe(400);
      expect(res.headers.get("content-type")).toBe("application/json");
      const body = (await res.json()) as { type: string; status: number };
      expect(body.status).toBe(400);
    }
    expect(await thumbBytes(app, videoId)).toEqual(before);
  });

  test("an unknown video is 404", async () => {
    const error = await client.videos.uploadThumbnail("vi0000000000000000000000", await makeImage("png")).catch((e) => e);
    expect(error.code).toBe(404);
  });
});

describe("thumbnails picked by timecode", () => {
  let automatic: string;
  let picked: string;

  beforeAll(async () => {
    automatic = await uploadVideo(app, project.productionKey, "production", clip, "automatic");
    // Picked before the video has a source: applied once it is encoded.
    picked = (await client.videos.create({ title: "picked early" })).videoId;
    const early = await client.videos.pickThumbnail(picked, { timecode: "00:00:02.00" });
    expect(early.videoId).toBe(picked);
    await uploadSource(app, project.productionKey, "production", picked, clip);
    await Promise.all([automatic, picked].map((id) => waitEncoded(app, project.productionKey, id, "production")));
  });

  test("the automatic pick is a JPEG frame of the video", async () => {
    const bytes = await thumbBytes(app, automatic);
    expect(isJpeg(bytes)).toBe(true);
    // 10 % in, at least 1 s: frame 25.
    expect(await distanceToFrame(app, automatic, 25)).toBeLessThan(6);
  });

  test("a timecode given before the source existed is applied after encoding", async () => {
    expect(await thumbBytes(app, picked)).not.toEqual(await thumbBytes(app, automatic));
    const near = await distanceToFrame(app, picked, 50); // 2 s at 25 fps
    const far = await distanceToFrame(app, picked, 25);
    expect(near).toBeLessThan(6);
    expect(far).toBeGreaterThan(near * 2);
  });

  test("on an encoded video it applies at once, in every timecode form", async () => {
    for (const [timecode, frame] of [["1.6", 40], ["00:00:00:10", 10], ["00:00:02.400", 60]] as const) {
      const res = await app.api(project.productionKey, "PATCH", `/videos/${automatic}/thumbnail`, { timecode }, "production");
      expect({ timecode, status: res.status }).toEqual({ timecode, status: 200 });
      expect(await distanceToFrame(app, automatic, frame)).toBeLessThan(6);
    }
  });

  test("a timecode past the end gives the first frame", async () => {
    for (const timecode of ["00:10:00", "2.99"]) {
      const res = await app.api(project.productionKey, "PATCH", `/videos/${automatic}/thumbnail`, { timecode }, "production");
      expect({ timecode, status: res.status }).toEqual({ timecode, status: 200 });
      expect(await distanceToFrame(app, automatic, 0)).toBeLessThan(6);
    }
  });

  test("a malformed timecode is 400", async () => {
    const res = await app.api(project.productionKey, "PATCH", `/videos/${automatic}/thumbnail`, { timecode: "soon" }, "production");
    expect(res.status).toBe(400);
    expect(((await res.json()) as { name?: string; problems?: { name: string }[] }).name ?? "").toBe("timecode");
  });
});

test("an encode in progress keeps a thumbnail uploaded or picked meanwhile", async () => {
  // Real-time ffmpeg: each encode lasts the clip's 3 s, so "meanwhile" is certain, not a race.
  const slow = await startTestAppliance({ env: { ...NO_RATE_LIMITS, VIDHOST_FFMPEG: realTimeFfmpeg(), VIDHOST_ENCODING_CONCURRENCY: "2" } });
  try {
    const key = slow.sandboxKey; // sandbox: no instant remux, so the video stays unplayable while the ladder encodes
    const [uploaded, pickedId] = await Promise.all(["uploaded meanwhile", "picked meanwhile"].map((t) => uploadVideo(slow, key, "sandbox", clip, t)));
    const encoding = (id: string) => waitFor(`${id} encoding`, async () => {
      const s = await videoStatus(slow, key, id, "sandbox");
      return s.encoding.qualities.some((q) => q.status === "encoding") && !s.encoding.playable;
    });
    await Promise.all([encoding(uploaded), encoding(pickedId)]);

    const png = await makeImage("png", "green");
    const up = await fetch(`${slow.urls.sandbox}/videos/${uploaded}/thumbnail`, {
      method: "POST", headers: { authorization: `Basic ${btoa(`${key}:`)}` }, body: formWith(png, "t.png"),
    });
    expect(up.status).toBe(200);
    expect((await slow.api(key, "PATCH", `/videos/${pickedId}/thumbnail`, { timecode: "00:00:02" })).status).toBe(200);

    await Promise.all([uploaded, pickedId].map((id) => waitEncoded(slow, key, id, "sandbox")));
    // The picked frame is rendered after the last rendition: wait for the job, not for a time.
    await waitFor("encode jobs done", () => slow.ctx.db.select().from(jobsTable).all().filter((j) => j.kind === "video.encode").every((j) => j.status === "done"));
    expect(await thumbBytes(slow, uploaded, "sandbox")).toEqual(await Bun.file(png).bytes());
    expect(await distanceToFrame(slow, pickedId, 50, "sandbox")).toBeLessThan(6);
  } finally {
    await slow.close();
  }
});

import { jobs as jobsTable } from "../../src/db/schema";

function formWith(file: string, name: string): FormData {
  const form = new FormData();
  form.append("file", Bun.file(file), name);
  return form;
}

test("an MPEG-TS source with a single keyframe gets its first frame as the thumbnail instead of failing", async () => {
  // No index in MPEG-TS: seeking 10 % in, past the lone keyframe, finds no frame to decode.
  const dir = mediaTempDir();
  const ts = join(dir, "one-keyframe.ts");
  const made = Bun.spawnSync([testMediaTools().ffmpeg, "-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i", `testsrc2=size=${W}x${H}:rate=25:duration=3`,
    "-c:v", "libx264", "-preset", "ultrafast", "-g", "1000", "-pix_fmt", "yuv420p", "-f", "mpegts", ts]);
  expect(made.exitCode).toBe(0);
  try {
    const videoId = await uploadVideo(app, project.productionKey, "production", ts, "one keyframe");
    await waitEncoded(app, project.productionKey, videoId, "production");
    expect(isJpeg(await thumbBytes(app, videoId))).toBe(true);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
