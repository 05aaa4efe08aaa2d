// Restreams: a stream-copy relay per destination. The destination here is a second appliance's
// RTMP ingest in the same process (so its own live stream starts broadcasting), plus a server that
// drops every connection, which must be retried with back-off without disturbing the main stream.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import net from "node:net";
import { startTestAppliance, waitFor, type TestAppliance } from "../helpers";
import {
  LIVE_TEST_ENV, createLiveStream, ingest, parsePlaylist, publish, recordings, subscribeAll, waitBroadcasting, waitEncoded, webhookReceiver,
} from "./live-support";

setDefaultTimeout(180_000);

let origin: TestAppliance;
let destination: TestAppliance;
const hooks = webhookReceiver();
let attempts = 0;
const refusing = net.createServer((socket) => {
  attempts++;
  socket.destroy();
});

beforeAll(async () => {
  origin = await startTestAppliance({ env: { ...LIVE_TEST_ENV, VIDHOST_LIVE_RECONNECT_S: "0" } });
  destination = await startTestAppliance({ env: { ...LIVE_TEST_ENV, VIDHOST_LIVE_RECONNECT_S: "0" } });
  await new Promise<void>((resolve) => refusing.listen(0, "127.0.0.1", resolve));
});
afterAll(async () => {
  await origin.close();
  await destination.close();
  refusing.close();
  hooks.stop();
});

test("a restream reaches another RTMP server; a failing destination is retried and never disturbs the main stream", async () => {
  const target = await createLiveStream(destination, destination.sandboxKey, { name: "Mirror" });
  await subscribeAll(destination, destination.sandboxKey, hooks.url("/destination"));
  const refusingPort = (refusing.address() as net.AddressInfo).port;
  const stream = await createLiveStream(origin, origin.sandboxKey, {
    name: "Origin",
    restreams: [
      { name: "Second Vidhost", serverUrl: `rtmp://127.0.0.1:${destination.ports.rtmp}/s`, streamKey: target.streamKey },
      { name: "Broken", serverUrl: `rtmp://127.0.0.1:${refusingPort}/app`, streamKey: "nope" },
    ],
  });

  const pub = publish(ingest(origin, stream.streamKey), 8);
  await waitBroadcasting(origin, origin.sandboxKey, stream.liveStreamId, true);
  // The relayed stream arrives as a publish on the other server, which serves it live.
  await waitBroadcasting(destination, destination.sandboxKey, target.liveStreamId, true);
  await waitFor("relayed live segments", async () => {
    const res = await fetch(target.assets.hls);
    return res.status === 200 && parsePlaylist(await res.text()).segments.length > 0;
  }, 20_000, 50);
  // The broken destination is tried again and again (1 s, then 2 s apart).
  await waitFor("retries of the broken destination", () => attempts >= 2, 20_000, 50);

  expect(await pub.exited).toBe(0);
  await waitBroadcasting(origin, origin.sandboxKey, stream.liveStreamId, false);
  await waitBroadcasting(destination, destination.sandboxKey, target.liveStreamId, false);

  // The main recording is whole despite the broken destination; the mirror recorded too.
  const [main] = await waitFor("the origin's recording", async () => {
    const list = await recordings(origin, origin.sandboxKey, stream.liveStreamId);
    return list.length ? list : null;
  });
  const status = await waitEncoded(origin, origin.sandboxKey, main.videoId);
  expect(status.encoding.metadata.duration).toBeGreaterThanOrEqual(7);
  const [mirror] = await waitFor("the mirror's recording", async () => {
    const list = await recordings(destination, destination.sandboxKey, target.liveStreamId);
    return list.length ? list : null;
  });
  expect((await waitEncoded(destination, destination.sandboxKey, mirror.videoId)).encoding.metadata.duration).toBeGreaterThanOrEqual(5);
  await waitFor("the mirror's events", () => hooks.events("/destination", "live-stream.broadcast.ended").length === 1);
  expect(hooks.events("/destination", "live-stream.broadcast.started")).toHaveLength(1);
});
