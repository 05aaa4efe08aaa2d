// Live streaming end to end: real ffmpeg publishers on the real RTMP port, live HLS over HTTP,
// webhooks at a real receiver, recordings that become videos and encode.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ffprobeJson } from "../fixtures/media";
import { startTestAppliance, waitFor, type TestAppliance } from "../helpers";
import {
  LIVE_TEST_ENV, createLiveStream, getLiveStream, ingest, parsePlaylist, publish, recordings, subscribeAll, waitBroadcasting, waitEncoded, webhookReceiver,
} from "./live-support";

setDefaultTimeout(180_000);

let app: TestAppliance;
let prod: string;
let sandbox: string;
let projectId: string;
const hooks = webhookReceiver();
const tmp = mkdtempSync(join(tmpdir(), "vidhost-live-"));

beforeAll(async () => {
  // No reconnect window here: a broadcast completes as soon as its publisher leaves (live-reconnect.test.ts covers the window).
  app = await startTestAppliance({ env: { ...LIVE_TEST_ENV, VIDHOST_LIVE_RECONNECT_S: "0" } });
  ({ productionKey: prod, sandboxKey: sandbox, projectId } = await app.newProject("Live e2e"));
  await subscribeAll(app, prod, hooks.url("/prod"), "production");
  await subscribeAll(app, sandbox, hooks.url("/sandbox"), "sandbox");
});
afterAll(async () => {
  await app.close();
  hooks.stop();
  rmSync(tmp, { recursive: true, force: true });
});

const ofStream = (path: string, type: string, id: string) => hooks.events(path, type).filter((e) => e.liveStreamId === id);

describe("a broadcast, end to end", () => {
  test("broadcasting flips, events fire once each, live HLS plays, and the recording becomes an encoded video", async () => {
    const stream = await createLiveStream(app, prod, { name: "Launch event" }, "production");
    const t0 = Date.now();
    const pub = publish(ingest(app, stream.streamKey), 6);

    await waitBroadcasting(app, prod, stream.liveStreamId, true, "production");
    const broadcastingSeenAt = Date.now();
    const listed = (await (await app.api(prod, "GET", "/live-streams", undefined, "production")).json()) as { data: { liveStreamId: string; broadcasting: boolean }[] };
    expect(listed.data.find((s) => s.liveStreamId === stream.liveStreamId)?.broadcasting).toBe(true);

    // The live playlist at assets.hls serves segments during the broadcast.
    const live = await waitFor("a live segment", async () => {
      const res = await fetch(stream.assets.hls);
      if (res.status !== 200) return null;
      const p = parsePlaylist(await res.text());
      return p.segments.length ? { res, p } : null;
    }, 20_000, 50);
    const firstSegmentMs = Date.now() - t0;
    expect(live.res.headers.get("content-type")).toBe("application/vnd.apple.mpegurl");
    expect(live.p.ended).toBe(false);
    // EXT-X-PROGRAM-DATE-TIME dates the first segment at the first frame's arrival (before
    // broadcasting could be seen true), not at the later start of the ingest's ffmpeg.
    const firstPdt = Date.parse(live.p.segments[0].programDateTime!.replace(/([+-]\d\d)(\d\d)$/, "$1:$2"));
    expect(firstPdt).toBeLessThanOrEqual(broadcastingSeenAt);
    expect(firstPdt).toBeGreaterThan(t0);
    for (const s of live.p.segments) {
      expect(s.duration).toBeGreaterThan(0.5);
      expect(s.duration).toBeLessThanOrEqual(2.1);
      expect(Date.parse(s.programDateTime!.replace(/([+-]\d\d)(\d\d)$/, "$1:$2"))).toBeGreaterThan(t0 - 5000);
    }
    const liveUsage = async () => ((await (await app.admin("GET", `/projects/${projectId}/delivery-usage?interval=week&environment=production`)).json()) as { items: { live_stream_hls_duration_minutes: number }[] }).items.at(-1)!.live_stream_hls_duration_minutes;
    // A HEAD serves no bytes: it is not delivery.
    expect((await fetch(new URL(live.p.segments[0].uri, stream.assets.hls), { method: "HEAD" })).status).toBe(200);
    expect(await liveUsage()).toBe(0);
    const segment = await fetch(new URL(live.p.segments[0].uri, stream.assets.hls));
    expect(segment.status).toBe(200);
    expect(segment.headers.get("content-type")).toBe("video/mp2t");
    const file = join(tmp, "segment.ts");
    writeFileSync(file, new Uint8Array(await segment.arrayBuffer()));
    const probe = await ffprobeJson(file);
    expect(probe.streams.map((s) => s.codec_name).sort()).toEqual(["aac", "h264"]);
    expect(probe.streams.find((s) => s.codec_type === "video")).toMatchObject({ width: 640, height: 360 });
    // Served live segments count toward the project's live delivery usage.
    expect(await liveUsage()).toBeGreaterThan(0);

    // A thumbnail refreshed from the live picture, and a live player page.
    const thumb = await waitFor("the live picture", async () => {
      const res = await fetch(stream.assets.thumbnail);
      return res.status === 200 ? res : null;
    }, 20_000, 100);
    expect(thumb.headers.get("content-type")).toBe("image/jpeg");
    expect((await thumb.arrayBuffer()).byteLength).toBeGreaterThan(1000);
    const page = await (await fetch(stream.assets.player)).text();
    expect(page).toContain('"live":true');
    expect(page).toContain(`poster="${stream.assets.thumbnail}"`);

    expect(await pub.exited).toBe(0);
    await waitBroadcasting(app, prod, stream.liveStreamId, false, "production");

    // The recording becomes a video, found by liveStreamId, and goes through the normal encoding.
    const [video] = await waitFor("the recording", async () => {
      const list = await recordings(app, prod, stream.liveStreamId, "production");
      return list.length ? list : null;
    });
    expect(video.title).toBe("Launch event");
    expect(video.source.liveStream?.liveStreamId).toBe(stream.liveStreamId);
    const status = await waitEncoded(app, prod, video.videoId, "production");
    expect(status.encoding.metadata.duration).toBeGreaterThanOrEqual(5);
    expect(status.encoding.metadata.duration).toBeLessThanOrEqual(7);
    expect(status.encoding.metadata.width).toBe(640);

    // Every event through the delivery engine: started and ended once each, then recorded, then the qualities.
    const qualities = status.encoding.qualities.length;
    await waitFor("every event delivered", () => hooks.events("/prod", "video.encoding.quality.completed").filter((e) => e.videoId === video.videoId).length === qualities);
    expect(ofStream("/prod", "live-stream.broadcast.started", stream.liveStreamId)).toHaveLength(1);
    expect(ofStream("/prod", "live-stream.broadcast.ended", stream.liveStreamId)).toHaveLength(1);
    const recorded = ofStream("/prod", "video.source.recorded", stream.liveStreamId);
    expect(recorded).toHaveLength(1);
    expect(recorded[0]).toMatchObject({ type: "video.source.recorded", liveStreamId: stream.liveStreamId, videoId: video.videoId });
    for (const e of hooks.events("/prod", "video.encoding.quality.completed").filter((e) => e.videoId === video.videoId)) expect(e.liveStreamId).toBe(stream.liveStreamId);
    const order = hooks.events("/prod").filter((e) => e.liveStreamId === stream.liveStreamId).map((e) => e.type);
    expect(order.slice(0, 3)).toEqual(["live-stream.broadcast.started", "live-stream.broadcast.ended", "video.source.recorded"]);

    // The finished broadcast's playlist ends, so players stop.
    expect(parsePlaylist(await (await fetch(stream.assets.hls)).text()).ended).toBe(true);
    console.log(`live e2e: first live segment listed ${firstSegmentMs} ms after the publisher was started`);
  });
});

describe("refusals", () => {
  test("an unknown key is refused; a second publisher on a broadcasting key is refused and the first goes on", async () => {
    const unknown = publish(ingest(app, "00000000-0000-0000-0000-000000000000"), 2);
    expect(await unknown.exited).not.toBe(0);
    expect(await unknown.stderr).toContain("unknown stream key");

    const stream = await createLiveStream(app, prod, { name: "Single publisher" }, "production");
    const first = publish(ingest(app, stream.streamKey), 60);
    await waitBroadcasting(app, prod, stream.liveStreamId, true, "production");
    const second = publish(ingest(app, stream.streamKey), 2);
    expect(await second.exited).not.toBe(0);
    expect(await second.stderr).toContain("already has a publisher");
    expect((await getLiveStream(app, prod, stream.liveStreamId, "production")).broadcasting).toBe(true);
    expect(ofStream("/prod", "live-stream.broadcast.started", stream.liveStreamId).length).toBeLessThanOrEqual(1);

    // A deleted stream's key is refused too; deleting ends the running broadcast first, and its recording is kept.
    await waitFor("a live segment", async () => (await fetch(stream.assets.hls)).status === 200, 20_000, 50);
    expect((await app.api(prod, "DELETE", `/live-streams/${stream.liveStreamId}`, undefined, "production")).status).toBe(204);
    expect(await first.exited).not.toBe(0);
    const again = publish(ingest(app, stream.streamKey), 2);
    expect(await again.exited).not.toBe(0);
    expect(await again.stderr).toContain("unknown stream key");
    await waitFor("the deleted stream's recording", async () => (await recordings(app, prod, stream.liveStreamId, "production")).length === 1);
    await waitFor("ended", () => ofStream("/prod", "live-stream.broadcast.ended", stream.liveStreamId).length === 1);
  });
});

describe("ending a broadcast", () => {
  test("PUT /live-streams/{id}/complete ends it: the publisher is let go, the playlist ends, one recording", async () => {
    const stream = await createLiveStream(app, prod, { name: "Completed" }, "production");
    const pub = publish(ingest(app, stream.streamKey), 60);
    await waitFor("a live segment", async () => (await fetch(stream.assets.hls)).status === 200, 20_000, 50);
    const res = await app.api(prod, "PUT", `/live-streams/${stream.liveStreamId}/complete`, undefined, "production");
    expect(res.status).toBe(202);
    expect(await res.text()).toBe("");
    expect(await pub.exited).not.toBe(0);
    await waitBroadcasting(app, prod, stream.liveStreamId, false, "production");
    const [video] = await waitFor("the recording", async () => {
      const list = await recordings(app, prod, stream.liveStreamId, "production");
      return list.length ? list : null;
    });
    await waitEncoded(app, prod, video.videoId, "production");
    expect(parsePlaylist(await (await fetch(stream.assets.hls)).text()).ended).toBe(true);
    // The key can be used again right away: a new broadcast.
    const next = publish(ingest(app, stream.streamKey), 2);
    expect(await next.exited).toBe(0);
    await waitFor("the second recording", async () => (await recordings(app, prod, stream.liveStreamId, "production")).length === 2);
    expect(ofStream("/prod", "live-stream.broadcast.started", stream.liveStreamId)).toHaveLength(2);
  });

  test("a publisher killed mid-broadcast still leaves a finished recording and broadcasting false", async () => {
    const stream = await createLiveStream(app, prod, { name: "Crashing encoder" }, "production");
    const pub = publish(ingest(app, stream.streamKey), 60);
    await waitFor("two live segments", async () => {
      const res = await fetch(stream.assets.hls);
      return res.status === 200 && parsePlaylist(await res.text()).segments.length >= 2;
    }, 20_000, 50);
    pub.proc.kill("SIGKILL");
    await waitBroadcasting(app, prod, stream.liveStreamId, false, "production");
    const [video] = await waitFor("the recording", async () => {
      const list = await recordings(app, prod, stream.liveStreamId, "production");
      return list.length ? list : null;
    });
    const status = await waitEncoded(app, prod, video.videoId, "production");
    expect(status.encoding.metadata.duration).toBeGreaterThanOrEqual(1);
    await waitFor("ended", () => ofStream("/prod", "live-stream.broadcast.ended", stream.liveStreamId).length === 1);
  });

  test("a sandbox broadcast is cut at 30 s of media; its recording is at most 30 s", async () => {
    const stream = await createLiveStream(app, sandbox, { name: "Sandbox live" });
    // Faster than real time, so 30 s of media arrive in a few seconds.
    const pub = publish(ingest(app, stream.streamKey), 45, { realTime: false, size: "320x180" });
    expect(await pub.exited).not.toBe(0);
    await waitBroadcasting(app, sandbox, stream.liveStreamId, false);
    const [video] = await waitFor("the recording", async () => {
      const list = await recordings(app, sandbox, stream.liveStreamId);
      return list.length ? list : null;
    });
    const status = await waitEncoded(app, sandbox, video.videoId);
    expect(status.encoding.metadata.duration).toBeLessThanOrEqual(30);
    expect(status.encoding.metadata.duration).toBeGreaterThanOrEqual(25);
    await waitFor("sandbox events", () => ofStream("/sandbox", "video.source.recorded", stream.liveStreamId).length === 1);
  });
});
