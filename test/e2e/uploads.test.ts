// Every upload mode of the official api.video Node client against a real server: regular, chunked
// (5 MiB parts), progressive sessions, and upload tokens (whole, chunked without videoId, progressive).
// Encoding is tested elsewhere: the job queue is stopped so encode jobs stay queued and cost nothing.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { rmSync } from "node:fs";
import { basename, join } from "node:path";
import ApiVideoClient from "@api.video/nodejs-client";
import { count, eq } from "drizzle-orm";
import { videos } from "../../src/db/schema";
import { makeClip, makeLargeClip, mediaTempDir } from "../fixtures/media";
import { startTestAppliance, waitFor, type TestAppliance } from "../helpers";
import { encodeJobs, MiB, sha256File, sourcePath, splitFile, statusOf, UNLIMITED } from "./upload-helpers";

setDefaultTimeout(120_000);

let app: TestAppliance;
let client: ApiVideoClient;
let chunked: ApiVideoClient;
let small: string;
let large: string;
let parts: string[];
const CHUNK = 5 * MiB;

beforeAll(async () => {
  app = await startTestAppliance({ env: UNLIMITED });
  await app.ctx.queue.stop();
  client = new ApiVideoClient({ apiKey: app.sandboxKey, baseUri: app.urls.sandbox });
  chunked = new ApiVideoClient({ apiKey: app.sandboxKey, baseUri: app.urls.sandbox, chunkSize: CHUNK });
  [small, large] = await Promise.all([
    makeClip({ width: 320, height: 240, seconds: 1, out: join(scratch(), "clip.mp4") }),
    makeLargeClip(11 * MiB, { out: join(scratch(), "large.mp4") }),
  ]);
  // Progressive part files: two of exactly 5 MiB, then the rest.
  parts = splitFile(large, scratch(), [CHUNK, 2 * CHUNK]);
});
afterAll(async () => {
  await app.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const dirs: string[] = [];
/** A temp folder removed after the file's tests. */
function scratch(): string {
  const dir = mediaTempDir();
  dirs.push(dir);
  return dir;
}

const videoCount = () =>
  app.ctx.db.select({ n: count() }).from(videos).where(eq(videos.projectId, app.projectId)).get()!.n;

/** What every finished upload must show: uploaded with the file's size, the same bytes stored, one encode job queued. */
async function expectUploaded(videoId: string, file: string) {
  const status = await statusOf(app, app.sandboxKey, videoId);
  expect(status.ingest.status).toBe("uploaded");
  expect(status.ingest.filesize).toBe(Bun.file(file).size);
  expect(await sha256File(sourcePath(app, app.projectId, "sandbox", videoId))).toBe(await sha256File(file));
  expect(encodeJobs(app, videoId).map((j) => j.status)).toEqual(["queued"]);
  // The client's own view agrees.
  const viaClient = await client.videos.getStatus(videoId);
  expect(viaClient.ingest?.status).toBe("uploaded");
  expect(viaClient.ingest?.filesize).toBe(Bun.file(file).size);
  return status;
}

describe("with an API key", () => {
  test("regular upload: one request, 201 Video", async () => {
    const video = await client.videos.create({ title: "regular" });
    const uploaded = await client.videos.upload(video.videoId, small);
    expect(uploaded.videoId).toBe(video.videoId);
    expect(uploaded.title).toBe("regular");
    expect(uploaded.source?.type).toBe("upload");
    // Sandbox sources are deleted 24 hours after they arrive.
    expect(Math.abs(uploaded.deletesAt!.getTime() - Date.now() - 24 * 3600_000)).toBeLessThan(60_000);
    const status = await expectUploaded(video.videoId, small);
    expect(status.ingest.receivedParts).toEqual({ parts: [], total: null });
  });

  test("chunked upload with 5 MiB chunks: part 1/3 … 3/3", async () => {
    expect(Bun.file(large).size).toBeGreaterThan(2 * CHUNK);
    const video = await client.videos.create({ title: "chunked" });
    const seen: number[] = [];
    const uploaded = await chunked.videos.upload(video.videoId, large, (e) => seen.push(e.currentChunk));
    expect(uploaded.videoId).toBe(video.videoId);
    expect(new Set(seen)).toEqual(new Set([0, 1, 2]));
    const status = await expectUploaded(video.videoId, large);
    expect(status.ingest.receivedParts).toEqual({ parts: [1, 2, 3], total: 3 });
  });

  test("a file exactly one chunk long goes in one request", async () => {
    const dir = scratch();
    const [exact] = splitFile(large, dir, [CHUNK], "exact");
    const video = await client.videos.create({ title: "exact" });
    await chunked.videos.upload(video.videoId, exact);
    await expectUploaded(video.videoId, exact);
  });

  test("progressive session: uploadPart, uploadPart, uploadLastPart", async () => {
    const video = await client.videos.create({ title: "progressive" });
    const session = client.videos.createUploadProgressiveSession(video.videoId);
    const first = await session.uploadPart(parts[0]);
    expect(first.videoId).toBe(video.videoId);
    let status = await statusOf(app, app.sandboxKey, video.videoId);
    expect(status.ingest.status).toBe("uploading");
    expect(status.ingest.receivedParts).toEqual({ parts: [1], total: null });
    expect(encodeJobs(app, video.videoId)).toEqual([]);
    await session.uploadPart(parts[1]);
    const last = await session.uploadLastPart(parts[2]);
    expect(last.videoId).toBe(video.videoId);
    status = await expectUploaded(video.videoId, large);
    expect(status.ingest.receivedParts).toEqual({ parts: [1, 2, 3], total: 3 });
  });

  test("a second upload to the same video is refused", async () => {
    const video = await client.videos.create({ title: "once" });
    await client.videos.upload(video.videoId, small);
    const error = await client.videos.upload(video.videoId, small).then(() => null, (e) => e);
    expect(error?.code).toBe(400);
    expect(error.problemDetails.type).toEndWith("/reference/video-source-already-uploaded");
    await expectUploaded(video.videoId, small);
  });
});

test("production: a chunked upload lands under the production folder and never expires", async () => {
  const project = await app.newProject("production uploads");
  const prod = new ApiVideoClient({ apiKey: project.productionKey, baseUri: app.urls.production, chunkSize: CHUNK });
  const video = await prod.videos.create({ title: "prod" });
  const uploaded = await prod.videos.upload(video.videoId, large);
  expect(uploaded.deletesAt ?? null).toBeNull();
  const status = await prod.videos.getStatus(video.videoId);
  expect(status.ingest?.status).toBe("uploaded");
  expect(status.ingest?.filesize).toBe(Bun.file(large).size);
  expect(await sha256File(sourcePath(app, project.projectId, "production", video.videoId))).toBe(await sha256File(large));
  expect(encodeJobs(app, video.videoId).map((j) => j.status)).toEqual(["queued"]);
  // The sandbox listener does not know it.
  const error = await new ApiVideoClient({ apiKey: project.sandboxKey, baseUri: app.urls.sandbox }).videos.get(video.videoId).then(() => null, (e) => e);
  expect(error?.code).toBe(404);
});

describe("with an upload token", () => {
  test("tokens: create, get, list, delete", async () => {
    const forever = await client.uploadTokens.createToken({ ttl: 0 });
    const hour = await client.uploadTokens.createToken({ ttl: 3600 });
    expect(forever.token).toMatch(/^to[0-9A-Za-z]{22}$/);
    expect(forever.ttl).toBe(0);
    expect(forever.expiresAt).toBeUndefined();
    expect(hour.ttl).toBe(3600);
    expect(hour.expiresAt!.getTime() - hour.createdAt!.getTime()).toBe(3600_000);
    expect((await client.uploadTokens.getToken(hour.token!)).token).toBe(hour.token);
    const listed = await client.uploadTokens.list({ sortBy: "ttl", sortOrder: "desc" });
    const ours = listed.data.map((t) => t.token).filter((t) => t === forever.token || t === hour.token);
    expect(ours).toEqual([hour.token, forever.token]);
    await client.uploadTokens.deleteToken(hour.token!);
    const gone = await client.uploadTokens.getToken(hour.token!).then(() => null, (e) => e);
    expect(gone?.code).toBe(404);
    expect(gone.problemDetails.name).toBe("uploadToken");
    expect((await client.uploadTokens.list({})).data.map((t) => t.token)).not.toContain(hour.token);
  });

  test("whole file: creates a video titled with the file name", async () => {
    const { token } = await client.uploadTokens.createToken({ ttl: 3600 });
    const before = videoCount();
    const video = await client.videos.uploadWithUploadToken(token!, small);
    expect(video.videoId).toMatch(/^vi/);
    expect(video.title).toBe(basename(small));
    expect(videoCount()).toBe(before + 1);
    await expectUploaded(video.videoId, small);
  });

  test("chunked without videoId (NODE's uploadWithUploadToken): all chunks land in ONE video", async () => {
    const { token } = await client.uploadTokens.createToken({ ttl: 0 });
    const chunkedTokenClient = new ApiVideoClient({ baseUri: app.urls.sandbox, chunkSize: CHUNK });
    const before = videoCount();
    const video = await chunkedTokenClient.videos.uploadWithUploadToken(token!, large);
    expect(videoCount()).toBe(before + 1);
    const status = await expectUploaded(video.videoId, large);
    expect(status.ingest.receivedParts).toEqual({ parts: [1, 2, 3], total: 3 });

    // The same file again with the same token is a new upload, hence a new video.
    const again = await chunkedTokenClient.videos.uploadWithUploadToken(token!, large);
    expect(again.videoId).not.toBe(video.videoId);
    expect(videoCount()).toBe(before + 2);
    await expectUploaded(again.videoId, large);
  });

  test("an abandoned chunked token upload does not capture the chunks of the next one", async () => {
    const { token } = await client.uploadTokens.createToken({ ttl: 0 });
    const name = basename(large);
    const total = Math.ceil(Bun.file(large).size / CHUNK);
    // A first attempt sends part 1 of another file with the same name and chunk count, then gives up.
    const abandoned = new FormData();
    abandoned.append(name, new Blob([new Uint8Array(CHUNK).fill(7)]), name);
    const first = await fetch(`${app.urls.sandbox}/upload?token=${token}`, { method: "POST", headers: { "content-range": `part 1/${total}` }, body: abandoned });
    expect(first.status).toBe(201);
    const stale = ((await first.json()) as { videoId: string }).videoId;

    const video = await new ApiVideoClient({ baseUri: app.urls.sandbox, chunkSize: CHUNK }).videos.uploadWithUploadToken(token!, large);
    expect(video.videoId).not.toBe(stale);
    await expectUploaded(video.videoId, large);
    const staleStatus = await statusOf(app, app.sandboxKey, stale);
    expect(staleStatus.ingest.receivedParts).toEqual({ parts: [1], total });
  });

  test("a progressive upload without videoId whose last part names the total stays in one video", async () => {
    const { token } = await client.uploadTokens.createToken({ ttl: 0 });
    const before = videoCount();
    const send = async (file: string, range: string) => {
      const body = new FormData();
      body.append("file", new Blob([Bun.file(file)]), "progressive.mp4");
      const res = await fetch(`${app.urls.sandbox}/upload?token=${token}`, { method: "POST", headers: { "content-range": range }, body });
      expect([range, res.status]).toEqual([range, 201]);
      return ((await res.json()) as { videoId: string }).videoId;
    };
    const ids = [await send(parts[0], "part 1/*"), await send(parts[1], "part 2/*"), await send(parts[2], "part 3/3")];
    expect(new Set(ids).size).toBe(1);
    expect(videoCount()).toBe(before + 1);
    await expectUploaded(ids[0], large);
  });

  test("progressive token session: the first part creates the video, later parts name it", async () => {
    const { token } = await client.uploadTokens.createToken({ ttl: 3600 });
    const before = videoCount();
    const session = client.videos.createUploadWithUploadTokenProgressiveSession(token!);
    const first = await session.uploadPart(parts[0]);
    expect(videoCount()).toBe(before + 1);
    expect((await statusOf(app, app.sandboxKey, first.videoId)).ingest.status).toBe("uploading");
    const second = await session.uploadPart(parts[1]);
    const last = await session.uploadLastPart(parts[2]);
    expect([second.videoId, last.videoId]).toEqual([first.videoId, first.videoId]);
    expect(videoCount()).toBe(before + 1);
    await expectUploaded(first.videoId, large);
  });

  test("missing, unknown, deleted, expired and wrong-environment tokens are 401", async () => {
    const body = () => {
      const form = new FormData();
      form.append("file", new Blob([Bun.file(small)]), "clip.mp4");
      return form;
    };
    const upload = (token: string | null, base = app.urls.sandbox) =>
      fetch(`${base}/upload${token === null ? "" : `?token=${token}`}`, { method: "POST", body: body() });
    const expect401 = async (res: Response, kind: string) => {
      expect(res.status).toBe(401);
      expect(res.headers.get("content-type")).toBe("application/json");
      expect(((await res.json()) as { type: string }).type).toEndWith(`/reference/${kind}`);
    };
    const before = videoCount();
    await expect401(await upload(null), "authentication-missing-upload-token");
    await expect401(await upload("to0000000000000000000000"), "authentication-invalid-upload-token");

    const deleted = await client.uploadTokens.createToken({ ttl: 0 });
    await client.uploadTokens.deleteToken(deleted.token!);
    await expect401(await upload(deleted.token!), "authentication-invalid-upload-token");

    const sandboxToken = await client.uploadTokens.createToken({ ttl: 0 });
    await expect401(await upload(sandboxToken.token!, app.urls.production), "authentication-invalid-upload-token");

    const shortLived = await client.uploadTokens.createToken({ ttl: 1 });
    const viaClient = await client.videos.uploadWithUploadToken(shortLived.token!, small);
    await expectUploaded(viaClient.videoId, small);
    await waitFor("the token to expire", () => Date.now() > shortLived.expiresAt!.getTime(), 5000);
    await expect401(await upload(shortLived.token!), "authentication-invalid-upload-token");
    const error = await client.videos.uploadWithUploadToken(shortLived.token!, small).then(() => null, (e) => e);
    expect(error?.code).toBe(401);
    expect((await client.uploadTokens.list({})).data.map((t) => t.token)).not.toContain(shortLived.token);
    expect(videoCount()).toBe(before + 1);
  });

  test("a token upload naming another project's video is 404", async () => {
    const other = await app.newProject("other");
    const theirs = await new ApiVideoClient({ apiKey: other.sandboxKey, baseUri: app.urls.sandbox }).videos.create({ title: "theirs" });
    const { token } = await client.uploadTokens.createToken({ ttl: 0 });
    const form = new FormData();
    form.append("file", new Blob([Bun.file(small)]), "clip.mp4");
    form.append("videoId", theirs.videoId);
    const res = await fetch(`${app.urls.sandbox}/upload?token=${token}`, { method: "POST", body: form });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { name: string }).name).toBe("videoId");
  });
});
