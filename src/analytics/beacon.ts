// The player pages' analytics reporter: a separate inline script beside the player's own. It watches
// the page's <video> and posts player events to COLLECT_PATH: impression on load, play, start (first
// frame), end, a heartbeat with the seconds watched every 10 s while watching, and a last heartbeat
// through navigator.sendBeacon when the page is hidden or left.

import { scriptJson } from "../delivery/script-json";

/** What the reporter needs: where to post and which media this page plays. */
export interface BeaconConfig {
  url: string;
  mediaId: string;
}

/** The inline script for a player page (its hash goes into the page's CSP). */
export function beaconScript(cfg: BeaconConfig): string {
  // `.call(…)`, not `(…)(…);`: pages are read by tests that find the player's own `})({config});` by that shape.
  return `(${REPORTER_SOURCE}).call(null, ${scriptJson(cfg)})`;
}

// Runs in the browser: serialised with toString(), so it must not reference anything outside itself.
function reporter(c: BeaconConfig): void {
  const HEARTBEAT_MS = 10_000;
  const video = document.getElementById("video") as HTMLVideoElement | null;
  if (!video) return;
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  const sessionId = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  // The embedding page (an iframe's document.referrer), or "" when opened directly.
  const referrer = document.referrer;
  let watched = 0;
  let lastTick = -1;
  let awaitingStart = false;
  let played = false;

  const body = (events: { type: string; watch?: number }[]) => JSON.stringify({ mediaId: c.mediaId, sessionId, referrer, events: events.map((e) => ({ age: 0, ...e })) });
  const send = (events: { type: string; watch?: number }[]): void => {
    // text/plain keeps the request "simple" (no CORS preflight), for fetch and sendBeacon alike.
    fetch(c.url, { method: "POST", body: body(events), keepalive: true, headers: { "content-type": "text/plain" } }).catch(() => {});
  };
  // Seconds watched: wall time between timeupdates while playing (a long gap is a stall, not watching).
  const tick = (): void => {
    const now = performance.now();
    if (lastTick >= 0) watched += Math.min(now - lastTick, 1000) / 1000;
    lastTick = video.paused ? -1 : now;
  };
  const takeWatched = (): number => {
    const w = Math.round(watched * 1000) / 1000;
    watched = 0;
    return w;
  };

  video.addEventListener("play", () => {
    if (played) return;
    played = true;
    awaitingStart = true;
    send([{ type: "play" }]);
  });
  video.addEventListener("playing", () => {
    lastTick = performance.now();
    if (!awaitingStart) return;
    awaitingStart = false;
    send([{ type: "start" }]);
  });
  video.addEventListener("timeupdate", tick);
  video.addEventListener("pause", tick);
  video.addEventListener("waiting", () => {
    tick();
    lastTick = -1;
  });
  video.addEventListener("ended", () => {
    tick();
    lastTick = -1;
    played = false; // Playing again is a new play.
    send([{ type: "end", watch: takeWatched() }]);
  });
  setInterval(() => {
    tick();
    if (watched > 0) send([{ type: "heartbeat", watch: takeWatched() }]);
  }, HEARTBEAT_MS);
  const flush = (): void => {
    tick();
    if (watched > 0) navigator.sendBeacon(c.url, body([{ type: "heartbeat", watch: takeWatched() }]));
  };
  addEventListener("pagehide", flush);
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "hidden") flush();
  });
  send([{ type: "impression" }]);
}

/** The reporter's source, serialised once (it never changes). */
const REPORTER_SOURCE = reporter.toString();
