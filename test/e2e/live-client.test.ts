// The official api.video Node client drives every live-stream method on a real server.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import ApiVideoClient from "@api.video/nodejs-client";
import { makeClip, mediaTempDir, testMediaTools } from "../fixtures/media";
import { startTestAppliance, waitFor, type TestAppliance } from "../helpers";
import { LIVE_TEST_ENV, ingest, publish, recordings } from "./live-support";

setDefaultTimeout(120_000);

let app: TestAppliance;
let client: ApiVideoClient;
const dir = mediaTempDir();

beforeAll(async () => {
  app = await startTestAppliance({ env: { ...LIVE_TEST_ENV, VIDHOST_LIVE_RECONNECT_S: "0" } });
  client = new ApiVideoClient({ apiKey: app.sandboxKey, baseUri: app.urls.sandbox });
});
afterAll(async () => {
  await app.close();
  rmSync(dir, { recursive: true, force: true });
});

const fail = (promise: Promise<unknown>) => promise.then(() => { throw new Error("expected the call to fail"); }, (e) => e);

test("create, get, list, update, delete", async () => {
  const created = await client.liveStreams.create({
    name: "Client live", _public: false, playerId: "pl4f4ferf5erfr5zed4fsdd",
    restreams: [{ name: "YouTube", serverUrl: "rtmp://a.rtmp.youtube.com/live2", streamKey: "abcd-efgh" }],
  });
  expect(created.liveStreamId).toMatch(/^li[0-9A-Za-z]{22}$/);
  expect(created.name).toBe("Client live");
  expect(created._public).toBe(false);
  expect(created.broadcasting).toBe(false);
  expect(created.streamKey).toBeString();
  expect(created.createdAt).toBeInstanceOf(Date);
  // Private: the asset URLs carry single-use tokens (live-private.test.ts plays them).
  expect(created.assets?.hls).toMatch(new RegExp(`^${app.urls.sandbox}/live/${created.liveStreamId}/token/[0-9a-f-]{36}/hls/manifest\\.m3u8$`));
  expect(created.assets?.player).toMatch(new RegExp(`^${app.urls.sandbox}/live/${created.liveStreamId}\\?token=[0-9a-f-]{36}$`));
  expect(created.assets?.iframe).toContain(created.assets!.player!);
  expect(created.restreams).toEqual([{ name: "YouTube", serverUrl: "rtmp://a.rtmp.youtube.com/live2", streamKey: "abcd-efgh" }]);

  const got = await client.liveStreams.get(created.liveStreamId);
  expect(got.streamKey).toBe(created.streamKey);
  expect(got.playerId).toBe("pl4f4ferf5erfr5zed4fsdd");

  await client.liveStreams.create({ name: "Other live" });
  const byKey = await client.liveStreams.list({ streamKey: created.streamKey });
  expect(byKey.data.map((s) => s.liveStreamId)).toEqual([created.liveStreamId]);
  const byName = await client.liveStreams.list({ name: "live", sortBy: "name", sortOrder: "desc", pageSize: 1, currentPage: 2 });
  expect(byName.data.map((s) => s.name)).toEqual(["Client live"]);
  expect(byName.pagination.itemsTotal).toBe(2);

  const updated = await client.liveStreams.update(created.liveStreamId, { name: "Renamed", _public: true, restreams: [] });
  expect(updated.name).toBe("Renamed");
  expect(updated._public).toBe(true);
  expect(updated.assets?.hls).toBe(`${app.urls.sandbox}/live/${created.liveStreamId}.m3u8`);
  expect(updated.assets?.player).toBe(`${app.urls.sandbox}/live/${created.liveStreamId}`);
  expect(updated.restreams).toEqual([]);

  await client.liveStreams.delete(created.liveStreamId);
  const gone = await fail(client.liveStreams.get(created.liveStreamId));
  expect(gone.code).toBe(404);
  expect(gone.problemDetails.name).toBe("liveStreamId");
});

test("the client surfaces restream validation problems", async () => {
  const error = await fail(client.liveStreams.create({ name: "Bad", restreams: [{ name: "x", serverUrl: "http://nope", streamKey: "k" }] }));
  expect(error.code).toBe(400);
  expect(error.problemDetails.name).toBe("restreams[0][serverUrl]");
});

test("uploadThumbnail and deleteThumbnail", async () => {
  const stream = await client.liveStreams.create({ name: "With a poster" });
  const clip = await makeClip({ width: 320, height: 180, seconds: 1, audio: false, out: join(dir, "poster-src.mp4") });
  const jpeg = join(dir, "poster.jpg");
  const proc = Bun.spawn([testMediaTools().ffmpeg, "-loglevel", "error", "-y", "-i", clip, "-frames:v", "1", jpeg]);
  expect(await proc.exited).toBe(0);
  const withThumb = await client.liveStreams.uploadThumbnail(stream.liveStreamId, jpeg);
  expect(withThumb.liveStreamId).toBe(stream.liveStreamId);
  const served = await fetch(withThumb.assets!.thumbnail!);
  expect(served.status).toBe(200);
  expect(served.headers.get("content-type")).toBe("image/jpeg");
  const cleared = await client.liveStreams.deleteThumbnail(stream.liveStreamId);
  expect(cleared.liveStreamId).toBe(stream.liveStreamId);
  expect((await fetch(withThumb.assets!.thumbnail!)).status).toBe(404);
  const notImage = join(dir, "not-image.jpg");
  writeFileSync(notImage, "plain text");
  expect((await fail(client.liveStreams.uploadThumbnail(stream.liveStreamId, notImage))).code).toBe(400);
});

test("complete ends a running broadcast; its recording is a video with source.liveStream", async () => {
  const stream = await client.liveStreams.create({ name: "Completed by the client" });
  const pub = publish(ingest(app, stream.streamKey!), 60);
  await waitFor("broadcasting", async () => (await client.liveStreams.get(stream.liveStreamId)).broadcasting, 20_000, 50);
  // 202 with no body (the client hands back its stringified empty body, as it would from api.video).
  await client.liveStreams.complete(stream.liveStreamId);
  expect(await pub.exited).not.toBe(0);
  await waitFor("not broadcasting", async () => !(await client.liveStreams.get(stream.liveStreamId)).broadcasting, 20_000, 50);
  await waitFor("the recording", async () => (await recordings(app, app.sandboxKey, stream.liveStreamId)).length === 1);
  const videos = await client.videos.list({ liveStreamId: stream.liveStreamId });
  expect(videos.data).toHaveLength(1);
  expect(videos.data[0].source?.liveStream?.liveStreamId).toBe(stream.liveStreamId);
  expect((await fail(client.liveStreams.complete("li0000000000000000000000"))).code).toBe(404);
});
