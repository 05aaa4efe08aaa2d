// Live HLS that is not a plain stream copy: VIDHOST_LIVE_LADDER's transcoded renditions beside the
// source, and a broadcaster sending neither H.264 nor AAC (FLV1 video, G.711 audio).
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ffprobeJson } from "../fixtures/media";
import { startTestAppliance, waitFor, type TestAppliance } from "../helpers";
import { LIVE_TEST_ENV, createLiveStream, ingest, parsePlaylist, publish, recordings, waitEncoded } from "./live-support";

setDefaultTimeout(180_000);

let app: TestAppliance;
const tmp = mkdtempSync(join(tmpdir(), "vidhost-live-transcode-"));

beforeAll(async () => {
  app = await startTestAppliance({ env: { ...LIVE_TEST_ENV, VIDHOST_LIVE_RECONNECT_S: "0", VIDHOST_LIVE_LADDER: "240p" } });
});
afterAll(async () => {
  await app.close();
  rmSync(tmp, { recursive: true, force: true });
});

/** Fetches a segment and returns ffprobe's view of it. */
async function probeSegment(url: string, name: string) {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  const file = join(tmp, name);
  writeFileSync(file, new Uint8Array(await res.arrayBuffer()));
  return ffprobeJson(file);
}

test("VIDHOST_LIVE_LADDER: a master playlist over the source copy and a transcoded 240p", async () => {
  const stream = await createLiveStream(app, app.sandboxKey, { name: "Ladder" });
  const pub = publish(ingest(app, stream.streamKey), 6);
  const master = await waitFor("both renditions", async () => {
    const res = await fetch(stream.assets.hls);
    const text = res.status === 200 ? await res.text() : "";
    return (text.match(/#EXT-X-STREAM-INF/g) ?? []).length === 2 ? text : null;
  }, 30_000, 50);
  expect(master).toContain('RESOLUTION=640x360,NAME="source"');
  expect(master).toContain('RESOLUTION=426x240,NAME="240p"');
  const variant = new URL(master.split("\n").find((l) => l.endsWith("240p/index.m3u8"))!, stream.assets.hls);
  const playlist = await waitFor("a 240p segment", async () => {
    const p = parsePlaylist(await (await fetch(variant)).text());
    return p.segments.length ? p : null;
  }, 20_000, 50);
  expect(playlist.segments[0].programDateTime).not.toBeNull();
  const probe = await probeSegment(new URL(playlist.segments[0].uri, variant).href, "240p.ts");
  expect(probe.streams.find((s) => s.codec_type === "video")).toMatchObject({ codec_name: "h264", width: 426, height: 240 });
  expect(probe.streams.find((s) => s.codec_type === "audio")?.codec_name).toBe("aac");
  expect(await pub.exited).toBe(0);
  const [video] = await waitFor("the recording", async () => {
    const list = await recordings(app, app.sandboxKey, stream.liveStreamId);
    return list.length ? list : null;
  });
  expect((await waitEncoded(app, app.sandboxKey, video.videoId)).encoding.metadata.duration).toBeGreaterThanOrEqual(5);
});

test("FLV1 video with G.711 audio is served as H.264/AAC and still recorded", async () => {
  const stream = await createLiveStream(app, app.sandboxKey, { name: "Old camera" });
  const pub = publish(ingest(app, stream.streamKey), 5, { size: "320x240", codecs: ["-c:v", "flv1", "-q:v", "6", "-g", "25", "-c:a", "pcm_alaw", "-ar", "8000", "-ac", "1"] });
  const live = await waitFor("a live segment", async () => {
    const res = await fetch(stream.assets.hls);
    const p = res.status === 200 ? parsePlaylist(await res.text()) : null;
    return p?.segments.length ? p : null;
  }, 30_000, 50);
  const probe = await probeSegment(new URL(live.segments[0].uri, stream.assets.hls).href, "old-camera.ts");
  expect(probe.streams.map((s) => s.codec_name).sort()).toEqual(["aac", "h264"]);
  expect(await pub.exited).toBe(0);
  const [video] = await waitFor("the recording", async () => {
    const list = await recordings(app, app.sandboxKey, stream.liveStreamId);
    return list.length ? list : null;
  });
  const status = await waitEncoded(app, app.sandboxKey, video.videoId);
  expect(status.encoding.metadata.duration).toBeGreaterThanOrEqual(4);
  expect(status.encoding.metadata.width).toBe(320);
});
