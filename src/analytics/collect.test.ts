// Player event reports: what the parser keeps, clamps and refuses; the geo and address helpers; and
// how the reporter script rides on the player page (its own script element, hash and connect-src).
import { expect, test } from "bun:test";
import { renderPlayerPage } from "../delivery/player";
import { beaconScript } from "./beacon";
import { parseReport } from "./collect";
import { continentOf, countryCode } from "./geo";

const media = "vi0123456789abcdefghijkl";
const session = "0123456789abcdef0123";

test("a report keeps its events, clamps ages and watch seconds, and cuts long referrers", () => {
  const r = parseReport(JSON.stringify({
    mediaId: media, sessionId: session, referrer: "r".repeat(3000),
    events: [{ type: "impression" }, { type: "heartbeat", watch: 9.5, age: 120 }, { type: "end", watch: 1e9, age: 1e9 }, { type: "play", watch: -3, age: -1 }],
  }));
  expect(r).toEqual({
    mediaId: media, sessionId: session, referrer: "r".repeat(2048),
    events: [
      { type: "impression", ageMs: 0, watchS: 0 }, { type: "heartbeat", ageMs: 120, watchS: 9.5 },
      { type: "end", ageMs: 60_000, watchS: 60 }, { type: "play", ageMs: 0, watchS: 0 },
    ],
  });
});

test.each([
  ["not JSON", "{"],
  ["no media", JSON.stringify({ sessionId: session, events: [{ type: "play" }] })],
  ["a bad media id", JSON.stringify({ mediaId: "vi1", sessionId: session, events: [{ type: "play" }] })],
  ["a short session id", JSON.stringify({ mediaId: media, sessionId: "abc", events: [{ type: "play" }] })],
  ["no events", JSON.stringify({ mediaId: media, sessionId: session, events: [] })],
  ["too many events", JSON.stringify({ mediaId: media, sessionId: session, events: Array(21).fill({ type: "play" }) })],
  ["an unknown event", JSON.stringify({ mediaId: media, sessionId: session, events: [{ type: "pause" }] })],
])("a report with %s is refused", (_, text) => {
  expect(parseReport(text)).toBeNull();
});

test("countries come from the header when they are real codes; continents from a static map", () => {
  expect([countryCode("fr"), countryCode(" US "), countryCode("XX"), countryCode("T1"), countryCode(null), countryCode("France")]).toEqual(["FR", "US", "unknown", "unknown", "unknown", "unknown"]);
  expect(["FR", "US", "BR", "JP", "AU", "ZA", "AQ", "unknown"].map(continentOf)).toEqual(["EU", "NA", "SA", "AS", "OC", "AF", "AN", "unknown"]);
});

test("the player page runs the reporter as its own script, allowed by hash and connect-src", () => {
  const analytics = { url: "https://stats.example/analytics/events", mediaId: media };
  const html = renderPlayerPage({ title: "t", hlsUrl: "/vod/x/hls/manifest.m3u8", posterUrl: null, hlsJsUrl: "/assets/hls.js", live: false, analytics });
  const script = beaconScript(analytics);
  expect(html).toContain(`<script>${script}</script>`);
  const hash = new Bun.CryptoHasher("sha256").update(script).digest("base64");
  const csp = /content="([^"]+)"/.exec(html)![1].replace(/&#39;/g, "'");
  expect(csp).toContain(`'sha256-${hash}'`);
  expect(csp).toMatch(/connect-src 'self' https:\/\/stats\.example;/);
  // Without analytics the page is as before: one script, no extra source.
  const plain = renderPlayerPage({ title: "t", hlsUrl: "/vod/x/hls/manifest.m3u8", posterUrl: null, hlsJsUrl: "/assets/hls.js", live: false });
  expect(plain.match(/<script>/g)?.length).toBe(1);
  expect(plain).toContain("connect-src &#39;self&#39;;");
});
