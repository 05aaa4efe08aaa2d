// The reconnect window: a broadcaster that comes back within VIDHOST_LIVE_RECONNECT_S continues the
// same broadcast and recording; later, it is a new broadcast with its own recording.
import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import { startTestAppliance, waitFor } from "../helpers";
import {
  LIVE_TEST_ENV, createLiveStream, ingest, parsePlaylist, publish, recordings, subscribeAll, waitBroadcasting, waitEncoded, webhookReceiver,
} from "./live-support";

setDefaultTimeout(180_000);

const hooks = webhookReceiver();
afterAll(() => hooks.stop());

const count = (path: string, type: string, id: string) => hooks.events(path, type).filter((e) => e.liveStreamId === id).length;

test("a reconnect within the window continues the broadcast: one recording of both parts, the live playlist goes on", async () => {
  const app = await startTestAppliance({ env: { ...LIVE_TEST_ENV, VIDHOST_LIVE_RECONNECT_S: "60" } });
  try {
    const key = app.sandboxKey;
    await subscribeAll(app, key, hooks.url("/long"));
    const stream = await createLiveStream(app, key, { name: "Flaky uplink" });

    const first = publish(ingest(app, stream.streamKey), 4);
    await waitBroadcasting(app, key, stream.liveStreamId, true);
    expect(await first.exited).toBe(0);
    // The publisher left: not broadcasting (ended fires), but the broadcast waits for it.
    await waitBroadcasting(app, key, stream.liveStreamId, false);
    const before = parsePlaylist(await (await fetch(stream.assets.hls)).text());
    expect(before.ended).toBe(false);
    expect(await recordings(app, key, stream.liveStreamId)).toEqual([]);

    const second = publish(ingest(app, stream.streamKey), 4);
    await waitBroadcasting(app, key, stream.liveStreamId, true);
    expect(await second.exited).toBe(0);
    await waitBroadcasting(app, key, stream.liveStreamId, false);

    // Segment numbers go on past the first part's, after a discontinuity.
    const after = await (await fetch(stream.assets.hls)).text();
    expect(after).toContain("#EXT-X-DISCONTINUITY");
    const lastBefore = before.segments.at(-1)!.uri;
    expect(parsePlaylist(after).segments.at(-1)!.uri > lastBefore).toBe(true);
    expect(await recordings(app, key, stream.liveStreamId)).toEqual([]);

    // Completing does not wait out the window: one video of both parts.
    expect((await app.api(key, "PUT", `/live-streams/${stream.liveStreamId}/complete`)).status).toBe(202);
    const [video] = await waitFor("the recording", async () => {
      const list = await recordings(app, key, stream.liveStreamId);
      return list.length ? list : null;
    });
    const status = await waitEncoded(app, key, video.videoId);
    expect(status.encoding.metadata.duration).toBeGreaterThanOrEqual(7);
    expect(status.encoding.metadata.duration).toBeLessThanOrEqual(9);
    await waitFor("the recorded event", () => count("/long", "video.source.recorded", stream.liveStreamId) === 1);
    expect(await recordings(app, key, stream.liveStreamId)).toHaveLength(1);
    // broadcasting follows the publisher: started and ended once per publish.
    expect(count("/long", "live-stream.broadcast.started", stream.liveStreamId)).toBe(2);
    expect(count("/long", "live-stream.broadcast.ended", stream.liveStreamId)).toBe(2);
  } finally {
    await app.close();
  }
});

test("after the window, the broadcast completes on its own and a new publish is a new recording", async () => {
  const app = await startTestAppliance({ env: { ...LIVE_TEST_ENV, VIDHOST_LIVE_RECONNECT_S: "2" } });
  try {
    const key = app.sandboxKey;
    await subscribeAll(app, key, hooks.url("/short"));
    const stream = await createLiveStream(app, key, { name: "Two shows" });
    expect(await publish(ingest(app, stream.streamKey), 2).exited).toBe(0);
    await waitFor("the first recording", async () => (await recordings(app, key, stream.liveStreamId)).length === 1);
    expect(await publish(ingest(app, stream.streamKey), 2).exited).toBe(0);
    await waitFor("the second recording", async () => (await recordings(app, key, stream.liveStreamId)).length === 2);
    await waitFor("two recorded events", () => count("/short", "video.source.recorded", stream.liveStreamId) === 2);
  } finally {
    await app.close();
  }
});
