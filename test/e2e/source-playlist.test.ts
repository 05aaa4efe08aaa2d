// A playlist as a video's source: uploaded or imported, an HLS playlist or a DASH manifest naming a
// media file elsewhere on the host (or in another project's folder) must fail with a readable
// reason and never become playable from the file it names. Plain containers still encode.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import ApiVideoClient from "@api.video/nodejs-client";
import { eq } from "drizzle-orm";
import { readdirSync, rmSync } from "node:fs";
import { join, relative } from "node:path";
import { jobs } from "../../src/db/schema";
import { ENCODE_JOB, IMPORT_JOB, videoKey } from "../../src/videos/service";
import { ffprobeJson, mediaTempDir } from "../fixtures/media";
import { dashManifest, hlsPlaylist, makeContainerClip, writeText, type Container } from "../fixtures/source-formats";
import { startTestAppliance, waitFor, type TestAppliance } from "../helpers";
import { NO_RATE_LIMITS, videoStatus, waitEncoded, type Env, type Status } from "./vod-support";

setDefaultTimeout(120_000);

const PLAYLIST = /^The file is a playlist, not a video: its format \((hls|dash)\) refers to other files\.$/;

let app: TestAppliance;
let client: ApiVideoClient; // the default project's sandbox key, as in the review's reproduction
let secretDir: string; // outside the data directory
let secretTs: string;
let secretMp4: string;
let other: { projectId: string; productionKey: string; videoId: string }; // another project's encoded video
let server: ReturnType<typeof Bun.serve>;
const served = new Map<string, string>();

beforeAll(async () => {
  secretDir = mediaTempDir();
  [app, secretTs, secretMp4] = await Promise.all([
    startTestAppliance({ env: { ...NO_RATE_LIMITS, VIDHOST_IMPORT_ALLOW_PRIVATE: "true" } }),
    makeContainerClip("ts", { dir: secretDir, width: 320, height: 240 }),
    // Keyframes every half second: seekable inside a playlist, so unrestricted ffmpeg encodes it whole.
    makeContainerClip("mp4", { dir: secretDir, width: 320, height: 240, seconds: 2, gop: 12 }),
  ]);
  client = new ApiVideoClient({ apiKey: app.sandboxKey, baseUri: app.urls.sandbox });
  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: (req) => {
      const text = served.get(new URL(req.url).pathname);
      return text === undefined ? new Response("no", { status: 404 }) : new Response(text, { headers: { "content-type": "application/octet-stream" } });
    },
  });
  // Another project's production video, encoded: its MP4 is what the relative playlist points at.
  const project = await app.newProject("Other");
  const owner = new ApiVideoClient({ apiKey: project.productionKey, baseUri: app.urls.production });
  const video = await owner.videos.create({ title: "private" });
  await owner.videos.upload(video.videoId, secretMp4);
  await waitEncoded(app, project.productionKey, video.videoId, "production");
  other = { ...project, videoId: video.videoId };
});
afterAll(async () => {
  await app?.close();
  server?.stop(true);
  rmSync(secretDir, { recursive: true, force: true });
});

const url = (path: string) => `http://127.0.0.1:${server.port}${path}`;

async function waitFailed(videoId: string, env: Env = "sandbox", key = app.sandboxKey): Promise<Status> {
  return waitFor(`${videoId} failed`, async () => {
    const s = await videoStatus(app, key, videoId, env);
    if (s.encoding.qualities.some((q) => q.status === "encoded")) throw new Error(`${videoId} encoded a rendition`);
    return s.encoding.qualities.length > 0 && s.encoding.qualities.every((q) => q.status === "failed") ? s : null;
  }, 60_000);
}

const videoDir = (videoId: string) => app.ctx.storage.localDir(videoKey({ projectId: app.projectId, environment: "sandbox", id: videoId }));

/** Every file under the video's folder, relative to it. */
function filesOf(videoId: string): string[] {
  const dir = videoDir(videoId);
  return (readdirSync(dir, { recursive: true, withFileTypes: true }) as { isFile(): boolean; parentPath: string; name: string }[])
    .filter((e) => e.isFile()).map((e) => relative(dir, join(e.parentPath, e.name))).sort();
}

/** Failed with the playlist's reason, once, with nothing to play and nothing but the upload on disk. */
async function expectRefused(videoId: string, kind: string, reason: RegExp = PLAYLIST): Promise<void> {
  const status = await waitFailed(videoId);
  expect(status.encoding.playable).toBe(false);
  expect(status.encoding.failureReason).toMatch(reason);
  expect(status.encoding.failureReason).not.toContain(secretDir);
  expect(status.encoding.failureReason).not.toContain(app.dataDir);
  // The job settles just after the video's status: wait for it.
  const job = await waitFor(`the ${kind} job of ${videoId} settled`, () => {
    const row = app.ctx.db.select().from(jobs).where(eq(jobs.kind, kind)).all().find((j) => JSON.parse(j.payload).videoId === videoId);
    return row && row.status !== "running" && row.status !== "queued" ? row : null;
  });
  expect([job.status, job.attempts]).toEqual(["failed", 1]); // a playlist will not become a video: no retry
  // Nothing of the named clip is served: no manifest, rendition, MP4 or thumbnail.
  const vod = `${app.urls.sandbox}/vod/${videoId}`;
  expect((await fetch(`${vod}/hls/manifest.m3u8`)).status).toBe(202);
  for (const path of ["/hls/240p/index.m3u8", "/hls/240p/seg_00000.ts", "/mp4/source.mp4", "/thumbnail.jpg"]) {
    expect((await fetch(vod + path)).status, path).toBe(404);
  }
  expect(filesOf(videoId).filter((f) => f !== "source")).toEqual([]);
  const video = await client.videos.get(videoId);
  expect(video.source?.uri ?? "").not.toContain(secretDir);
}

/** Uploads `text` with the official client as a new sandbox video's source; returns its id. */
async function uploadText(text: string, name: string, title: string): Promise<string> {
  const file = writeText(text, name);
  const video = await client.videos.create({ title });
  await client.videos.upload(video.videoId, file);
  rmSync(join(file, ".."), { recursive: true, force: true });
  return video.videoId;
}

describe("an uploaded playlist", () => {
  test("an HLS playlist naming a clip elsewhere on the host (absolute path) fails as a playlist", async () => {
    const videoId = await uploadText(hlsPlaylist(secretTs), "playlist.m3u8", "absolute");
    // The stored upload is a working attack: an unrestricted ffprobe plays the clip it names.
    const stored = join(videoDir(videoId), "source");
    const raw = await ffprobeJson(stored);
    expect(raw.format.format_name).toBe("hls");
    expect(raw.streams.find((s) => s.codec_type === "video")?.width).toBe(320);
    await expectRefused(videoId, ENCODE_JOB);
  });

  test("an HLS playlist naming another project's MP4 by a relative path fails as a playlist", async () => {
    const created = await client.videos.create({ title: "relative" });
    // From <media>/<project>/sandbox/videos/<id>/ up to <media>/, then into the other project.
    const target = `../../../../${other.projectId}/production/videos/${other.videoId}/mp4/source.mp4`;
    const file = writeText(hlsPlaylist(target, 2), "source.mp4");
    await client.videos.upload(created.videoId, file);
    const raw = await ffprobeJson(join(videoDir(created.videoId), "source"));
    expect(raw.format.format_name).toBe("hls");
    expect(raw.streams.some((s) => s.codec_type === "video")).toBe(true);
    await expectRefused(created.videoId, ENCODE_JOB);
  });

  test("a DASH manifest naming a local MP4 fails as a playlist", async () => {
    const videoId = await uploadText(dashManifest(secretMp4, { width: 320, height: 240 }), "manifest.mpd", "dash");
    expect((await ffprobeJson(join(videoDir(videoId), "source"))).format.format_name).toBe("dash");
    await expectRefused(videoId, ENCODE_JOB);
  });
});

describe("an imported playlist", () => {
  test("a playlist downloaded from a URL is refused the same way", async () => {
    served.set("/playlist.m3u8", hlsPlaylist(secretTs));
    served.set("/manifest.mpd", dashManifest(secretMp4, { width: 320, height: 240 }));
    for (const path of ["/playlist.m3u8", "/manifest.mpd"]) {
      const video = await client.videos.create({ title: path, source: url(path) });
      await expectRefused(video.videoId, IMPORT_JOB, /^The downloaded file is not a usable video: The file is a playlist, not a video: /);
    }
  });

  test("a copy of a video whose source is a playlist is refused the same way", async () => {
    const original = await uploadText(hlsPlaylist(secretTs), "playlist.m3u8", "to copy");
    await waitFailed(original);
    const copy = await client.videos.create({ title: "copy", source: original });
    await expectRefused(copy.videoId, IMPORT_JOB);
  });
});

describe("plain containers", () => {
  test.each(["mp4", "mkv", "webm", "ts", "avi"] as Container[])("a %s upload still encodes", async (container) => {
    const clip = await makeContainerClip(container);
    const video = await client.videos.create({ title: container });
    await client.videos.upload(video.videoId, clip);
    rmSync(join(clip, ".."), { recursive: true, force: true });
    const status = await waitEncoded(app, app.sandboxKey, video.videoId, "sandbox");
    expect(status.encoding.playable).toBe(true);
    expect((await fetch(`${app.urls.sandbox}/vod/${video.videoId}/hls/manifest.m3u8`)).status).toBe(200);
  });
});
