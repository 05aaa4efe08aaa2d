// A private live stream over real RTMP: its asset URLs carry single-use tokens, the tokenised
// playlist answers a master playlist whose variant carries a new `avh` session (players reload a
// live playlist, which a spent token could not serve), the session reaches the media playlist and
// its segments, `/session` and the player page open sessions, and HEAD never spends a token.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import ApiVideoClient from "@api.video/nodejs-client";
import { startTestAppliance, waitFor, type TestAppliance } from "../helpers";
import { LIVE_TEST_ENV, ingest, parsePlaylist, publish, type Publisher } from "./live-support";

setDefaultTimeout(120_000);

let app: TestAppliance;
let client: ApiVideoClient;
let pub: Publisher | undefined;

beforeAll(async () => {
  app = await startTestAppliance({ env: { ...LIVE_TEST_ENV, VIDHOST_LIVE_RECONNECT_S: "0" } });
  client = new ApiVideoClient({ apiKey: app.sandboxKey, baseUri: app.urls.sandbox });
});
afterAll(async () => {
  pub?.proc.kill();
  await app?.close();
});

const tokenOf = (url: string) => /\/token\/([0-9a-f-]{36})\//.exec(url)?.[1] ?? /[?&]token=([0-9a-f-]{36})/.exec(url)?.[1] ?? "";

test("a private live stream plays from its tokens and sessions only", async () => {
  const stream = await client.liveStreams.create({ name: "Private live", _public: false });
  const id = stream.liveStreamId;
  const live = `${app.urls.sandbox}/live/${id}`;
  const assets = async () => (await client.liveStreams.get(id)).assets!;
  const first = stream.assets!;
  expect(first.hls).toMatch(new RegExp(`^${live}/token/[0-9a-f-]{36}/hls/manifest\\.m3u8$`));
  expect(first.thumbnail).toMatch(new RegExp(`^${live}/token/[0-9a-f-]{36}/thumbnail\\.jpg$`));
  expect(first.player).toMatch(new RegExp(`^${live}\\?token=[0-9a-f-]{36}$`));
  expect(first.iframe).toContain(first.player!);
  expect(tokenOf((await assets()).hls!)).not.toBe(tokenOf(first.hls!));

  // Before the broadcast the playlist 404s and the token stays unspent.
  expect((await fetch(first.hls!)).status).toBe(404);
  pub = publish(ingest(app, stream.streamKey!), 30);
  // HEAD looks without spending: poll with it until the first segment is out.
  await waitFor("the private live playlist", async () => (await fetch(first.hls!, { method: "HEAD" })).status === 200, 30_000, 100);

  const master = await fetch(first.hls!);
  expect(master.status).toBe(200);
  const text = await master.text();
  expect(text).toContain("#EXT-X-STREAM-INF:BANDWIDTH=");
  const variant = text.split("\n").find((l) => l && !l.startsWith("#"))!;
  const avh = new RegExp(`^/live/${id}\\.m3u8\\?avh=([0-9a-f-]{36})$`).exec(variant)?.[1];
  expect(avh).toBeString();
  expect((await fetch(first.hls!)).status).toBe(404);

  // The session reaches the media playlist again and again (live reloads) and its segments.
  expect((await fetch(`${live}.m3u8`)).status).toBe(404);
  for (let i = 0; i < 2; i++) {
    const media = await fetch(new URL(variant, first.hls!));
    expect(media.status).toBe(200);
    const { segments } = parsePlaylist(await media.text());
    expect(segments.length).toBeGreaterThan(0);
    for (const s of segments) expect(s.uri).toMatch(new RegExp(`^/live/${id}/bc\\w{22}/source/seg_\\d+\\.ts\\?avh=${avh}$`));
    const segment = await fetch(new URL(segments[0].uri, live));
    expect(segment.status).toBe(200);
    expect(segment.headers.get("content-type")).toBe("video/mp2t");
    expect((await fetch(new URL(segments[0].uri.replace(/\?.*/, ""), live))).status).toBe(404);
  }

  // /session from another answer's token, and the player page with its own.
  const fresh = await assets();
  const session = await fetch(`${live}/token/${tokenOf(fresh.thumbnail!)}/session`);
  expect(session.status).toBe(200);
  const { session_token } = (await session.json()) as { session_token: string };
  expect((await fetch(`${live}.m3u8?avh=${session_token}`)).status).toBe(200);
  expect((await fetch(`${live}/token/${tokenOf(fresh.thumbnail!)}/session`)).status).toBe(404);
  const page = await fetch(fresh.player!);
  expect(page.status).toBe(200);
  const html = await page.text();
  expect(html).toMatch(new RegExp(`/live/${id}\\.m3u8\\?avh=[0-9a-f-]{36}`));
  expect((await fetch(fresh.player!)).status).toBe(404);

  // Made public, the plain URLs work at once; private again, they stop.
  const opened = await client.liveStreams.update(id, { _public: true });
  expect(opened.assets!.hls).toBe(`${live}.m3u8`);
  expect((await fetch(`${live}.m3u8`)).status).toBe(200);
  await client.liveStreams.update(id, { _public: false });
  expect((await fetch(`${live}.m3u8`)).status).toBe(404);
});
