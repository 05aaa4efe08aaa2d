// The embeddable player page (api.video's `assets.player`): one small self-contained HTML document
// that plays HLS natively where the browser can and with a self-hosted hls.js elsewhere, honours
// api.video's embed fragments and waits through "processing" (202) and "not live yet" (404).
import { createHash } from "node:crypto";
import type Hls from "hls.js";
import type { HlsConfig } from "hls.js";
import { beaconScript, type BeaconConfig } from "../analytics/beacon";
import { scriptJson } from "./script-json";

/** What the server knows when it renders a player page. */
export interface PlayerPageOptions {
  title: string;
  hlsUrl: string;
  posterUrl: string | null;
  /** Where hls.js is served (HLS_JS_PATH on the same listener); loaded only when needed. */
  hlsJsUrl: string;
  live: boolean;
  /** A player theme (§8.1): colours plus hideTitle, enableControls, forceAutoplay, forceLoop. */
  theme?: Record<string, string | boolean>;
  /** The theme's logo: its image URL and where a click leads (§8.1). */
  logo?: { url: string; link: string | null };
  /** Chapters to list (from the video's chapter file): start time and title, in order. */
  chapters?: { startS: number; title: string }[];
  /** Player events go to this analytics endpoint (a separate script, see analytics/beacon.ts). */
  analytics?: BeaconConfig;
}

/** The data handed to the page script. */
interface ClientConfig {
  hlsUrl: string;
  hlsJsUrl: string;
  live: boolean;
  theme: Record<string, string | boolean>;
  chapters: { startS: number; title: string }[];
}

const STYLE = `html,body{margin:0;height:100%;background:#000;overflow:hidden;font:15px/1.4 system-ui,sans-serif}
video{position:fixed;inset:0;width:100%;height:100%;background:#000;object-fit:contain}
#title{position:fixed;top:0;left:0;right:0;padding:12px 16px 28px;color:var(--theme-backgroundText,#fff);pointer-events:none;
background:linear-gradient(var(--theme-backgroundTop,rgba(0,0,0,.7)),transparent);white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
#status{position:fixed;left:50%;top:50%;transform:translate(-50%,-50%);max-width:80%;padding:12px 18px;border-radius:6px;
color:var(--theme-text,#fff);background:var(--theme-backgroundBottom,rgba(0,0,0,.7));text-align:center;pointer-events:none}
#chapters{position:fixed;top:8px;right:8px;max-width:min(22em,70%);color:var(--theme-text,#fff);text-align:right}
#chapters>button,#chapters li button{font:inherit;color:inherit;cursor:pointer;border:0;border-radius:4px;background:var(--theme-backgroundBottom,rgba(0,0,0,.7))}
#chapters>button{padding:4px 10px}
#chapters ol{list-style:none;margin:4px 0 0;padding:4px;max-height:60vh;overflow:auto;text-align:left;border-radius:6px;background:var(--theme-backgroundBottom,rgba(0,0,0,.7))}
#chapters li button{display:block;width:100%;padding:4px 8px;text-align:left;background:transparent}
#chapters li button[aria-current=true]{background:var(--theme-link,rgba(255,255,255,.25))}
#chapters time{opacity:.7;margin-right:.6em;font-variant-numeric:tabular-nums}
#logo{position:fixed;right:12px;bottom:64px;line-height:0}
#logo img{max-width:200px;max-height:100px}
[hidden]{display:none!important}`;

/** Renders the complete player page; every caller-provided value is escaped or JSON-encoded. */
export function renderPlayerPage(opts: PlayerPageOptions): string {
  const chapters = opts.chapters ?? [];
  const config: ClientConfig = { hlsUrl: opts.hlsUrl, hlsJsUrl: opts.hlsJsUrl, live: opts.live, theme: opts.theme ?? {}, chapters };
  const script = `(${PLAYER_SOURCE})(${scriptJson(config)});`;
  const beacon = opts.analytics ? beaconScript(opts.analytics) : null;
  const csp = contentSecurityPolicy(opts, beacon ? `${sha256(script)} ${sha256(beacon)}` : sha256(script), sha256(STYLE));
  const title = escapeHtml(opts.title);
  const poster = opts.posterUrl ? ` poster="${escapeHtml(opts.posterUrl)}"` : "";
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(csp)}">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>${title}</title>
<style>${STYLE}</style>
</head><body data-state="loading">
<video id="video" controls playsinline preload="metadata"${poster}></video>
<div id="title"${opts.title.trim() ? "" : " hidden"}>${title}</div>
<div id="status" role="status" aria-live="polite" hidden></div>${chapterList(chapters)}${logoMark(opts.logo)}
<script>${script}</script>${beacon ? `<script>${beacon}</script>` : ""}
</body></html>
`;
}

// The chapter menu: a toggle and one button per chapter (the page script seeks and marks the current one).
function chapterList(chapters: { startS: number; title: string }[]): string {
  if (!chapters.length) return "";
  const clock = (s: number) => {
    const t = Math.floor(s);
    const hms = [Math.floor(t / 3600), Math.floor((t % 3600) / 60), t % 60];
    return (hms[0] ? [hms[0], ...hms.slice(1).map((n) => String(n).padStart(2, "0"))] : [hms[1], String(hms[2]).padStart(2, "0")]).join(":");
  };
  const items = chapters.map((c, i) =>
    `<li><button type="button" data-chapter="${i}"><time>${clock(c.startS)}</time>${escapeHtml(c.title)}</button></li>`).join("");
  return `\n<nav id="chapters" aria-label="Chapters"><button type="button" id="chapters-toggle" aria-expanded="false" aria-controls="chapter-list">Chapters</button><ol id="chapter-list" hidden>${items}</ol></nav>`;
}

// The theme's logo, a link (opened outside the embed) when it has one.
function logoMark(logo: PlayerPageOptions["logo"]): string {
  if (!logo) return "";
  const img = `<img src="${escapeHtml(logo.url)}" alt="">`;
  return logo.link && /^https?:\/\//i.test(logo.link)
    ? `\n<a id="logo" href="${escapeHtml(logo.link)}" target="_blank" rel="noopener noreferrer">${img}</a>`
    : `\n<div id="logo">${img}</div>`;
}

/** api.video's `assets.iframe` for a player URL. */
export function iframeSnippet(playerUrl: string): string {
  return `<iframe src="${escapeHtml(playerUrl)}" width="100%" height="100%" frameborder="0" scrolling="no" allowfullscreen=""></iframe>`;
}

/** Escapes text for HTML element content and double- or single-quoted attributes. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function sha256(text: string): string {
  return `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;
}

// A CSP source for a URL: its origin when absolute http(s), 'self' when relative (served by us),
// nothing for other schemes, so a javascript: or data: URL stays blocked.
function sourceOf(url: string): string | null {
  if (!/^[a-z][a-z0-9+.-]*:/i.test(url)) return "'self'";
  try {
    const u = new URL(url);
    return u.protocol === "http:" || u.protocol === "https:" ? u.origin : null;
  } catch {
    return null;
  }
}

// Hashes (not nonces) keep the page deterministic and cacheable. The page must stay frameable,
// and frame-ancestors cannot be set from a meta tag anyway.
function contentSecurityPolicy(opts: PlayerPageOptions, scriptHash: string, styleHash: string): string {
  const media = sourceOf(opts.hlsUrl);
  const hlsJs = sourceOf(opts.hlsJsUrl);
  const poster = opts.posterUrl ? sourceOf(opts.posterUrl) : null;
  const logo = opts.logo ? sourceOf(opts.logo.url) : null;
  const analytics = opts.analytics ? sourceOf(opts.analytics.url) : null;
  const list = (...s: (string | null)[]) => [...new Set(s.filter((x): x is string => x !== null))].join(" ") || "'none'";
  return [
    "default-src 'none'",
    `script-src ${list(scriptHash, hlsJs === "'self'" || hlsJs === null ? hlsJs : absoluteScript(opts.hlsJsUrl))}`,
    `style-src ${styleHash}`,
    // The manifest probe and hls.js's playlist and segment requests.
    `connect-src ${list(media, analytics)}`,
    // Native HLS reads the URL itself; hls.js feeds the element a MediaSource blob: URL.
    `media-src ${list(media, "blob:")}`,
    // hls.js runs its transmuxer in a worker built from a blob: URL.
    "worker-src blob:",
    `img-src ${list(poster, logo)}`,
    "base-uri 'none'",
    "form-action 'none'",
  ].join("; ");
}

// The exact script URL (minus query and fragment, which CSP ignores) rather than its whole origin.
function absoluteScript(url: string): string {
  const u = new URL(url);
  return u.origin + u.pathname;
}

// Runs in the browser: serialised with toString(), so it must not reference anything outside itself.
function playerMain(c: ClientConfig): void {
  const RETRY_MS = 3000;
  const video = document.getElementById("video") as HTMLVideoElement;
  const titleEl = document.getElementById("title") as HTMLElement;
  const statusEl = document.getElementById("status") as HTMLElement;

  // Embed fragments, api.video style: #autoplay;loop;t=10,20;hide-title;hide-controls;muted
  const flags = new Set<string>();
  let start = 0;
  let end = Infinity;
  let hash = location.hash.slice(1);
  try {
    hash = decodeURIComponent(hash);
  } catch {
    // A malformed escape: read the fragment as it is.
  }
  for (const raw of hash.split(";")) {
    const part = raw.trim();
    if (!part.startsWith("t=")) {
      if (part) flags.add(part);
      continue;
    }
    const [from, to] = part.slice(2).split(",").map(Number);
    if (Number.isFinite(from) && from >= 0) start = from;
    if (to !== undefined && Number.isFinite(to) && to > start) end = to;
  }
  if (c.live) [start, end] = [0, Infinity];

  const theme = c.theme;
  for (const [key, value] of Object.entries(theme)) {
    // setProperty drops values that do not parse, so a theme cannot inject CSS.
    if (typeof value === "string" && /^[A-Za-z]+$/.test(key)) document.documentElement.style.setProperty(`--theme-${key}`, value);
  }
  const autoplay = flags.has("autoplay") || theme.forceAutoplay === true;
  const loop = flags.has("loop") || theme.forceLoop === true;
  if (flags.has("hide-title") || theme.hideTitle === true) titleEl.hidden = true;
  if (flags.has("hide-controls") || theme.enableControls === false) {
    video.controls = false;
    video.addEventListener("click", () => void (video.paused ? video.play().catch(() => {}) : video.pause()));
  }
  // Browsers allow autoplay only when muted.
  video.muted = flags.has("muted") || autoplay;
  video.autoplay = autoplay;
  video.loop = loop && start === 0 && end === Infinity;

  const setState = (state: string, message?: string): void => {
    document.body.dataset.state = state;
    statusEl.textContent = message ?? "";
    statusEl.hidden = !message;
  };
  const retry = (state: string, message: string): void => {
    setState(state, message);
    setTimeout(probe, RETRY_MS);
  };

  // t=START: seek once metadata is known (hls.js also gets startPosition, to fetch the right segment first).
  video.addEventListener("loadedmetadata", () => {
    if (start > 0 && video.currentTime < start) video.currentTime = start;
  });
  // t=START,END: stop (or loop back) at END; seeking back before END re-arms the stop.
  let endArmed = true;
  video.addEventListener("seeking", () => {
    if (video.currentTime < end) endArmed = true;
  });
  video.addEventListener("timeupdate", () => {
    if (!endArmed || video.currentTime < end) return;
    if (loop) {
      video.currentTime = start;
    } else {
      endArmed = false;
      video.pause();
    }
  });
  video.addEventListener("ended", () => {
    if (loop && !video.loop) {
      video.currentTime = start;
      video.play().catch(() => {});
    }
  });
  video.addEventListener("playing", () => setState("playing"));

  const canNative = video.canPlayType("application/vnd.apple.mpegurl") !== "";
  const canMse = "MediaSource" in window || "ManagedMediaSource" in window;
  // Live prefers hls.js where it can run, for its low-latency live settings.
  const engine = canNative && !(c.live && canMse) ? "native" : "hls.js";
  document.body.dataset.engine = engine;
  const play = (): void => {
    if (autoplay) video.play().catch(() => {}); // Refused autoplay leaves the controls to the viewer.
  };

  // Asks for the manifest first: 202 = still encoding, 404 on live = no broadcast yet.
  function probe(): void {
    fetch(c.hlsUrl, { cache: "no-store" }).then(
      async (res) => {
        const text = await res.text().catch(() => "");
        if (res.status === 200 && text.trim() !== "") attach();
        else if (res.status === 202 || res.status === 200) retry("processing", c.live ? "Waiting for the broadcast…" : "This video is being processed…");
        else if (res.status === 404 && c.live) retry("waiting", "Waiting for the broadcast…");
        else if (res.status === 429 || res.status >= 500) retry("retrying", "Connection problem, retrying…");
        else setState("error", res.status === 404 ? "This video does not exist." : "This video cannot be played.");
      },
      () => retry("retrying", "Connection problem, retrying…"),
    );
  }

  function attach(): void {
    setState("loading");
    if (engine === "native") {
      video.src = c.hlsUrl;
      play();
      return;
    }
    loadHlsJs().then(
      (H) => (H.isSupported() ? attachHlsJs(H) : setState("error", "This browser cannot play this video.")),
      () => retry("retrying", "The player could not load, retrying…"),
    );
  }

  function loadHlsJs(): Promise<typeof Hls> {
    const w = window as unknown as { Hls?: typeof Hls };
    if (w.Hls) return Promise.resolve(w.Hls);
    return new Promise((resolve, reject) => {
      const s = document.createElement("script");
      s.src = c.hlsJsUrl;
      s.onload = () => (w.Hls ? resolve(w.Hls) : reject(new Error("hls.js did not load")));
      s.onerror = () => {
        s.remove();
        reject(new Error("hls.js did not load"));
      };
      document.head.appendChild(s);
    });
  }

  function attachHlsJs(H: typeof Hls): void {
    const resumeAt = video.currentTime > 0 ? video.currentTime : start;
    const config: Partial<HlsConfig> = c.live
      ? { lowLatencyMode: true, liveSyncDuration: 3, liveMaxLatencyDuration: 10, maxLiveSyncPlaybackRate: 1.5, backBufferLength: 30 }
      : { startPosition: resumeAt > 0 ? resumeAt : -1 };
    const hls = new H(config);
    hls.on(H.Events.ERROR, (_event, data) => {
      if (!data.fatal) return;
      if (data.type === H.ErrorTypes.MEDIA_ERROR) {
        hls.recoverMediaError();
        return;
      }
      hls.destroy();
      // A live playlist that vanished means the broadcast stopped; a VOD network fault is retried.
      if (data.type === H.ErrorTypes.NETWORK_ERROR) retry(c.live ? "waiting" : "retrying", c.live ? "Waiting for the broadcast…" : "Connection problem, retrying…");
      else setState("error", "This video cannot be played.");
    });
    hls.attachMedia(video);
    hls.loadSource(c.hlsUrl);
    play();
  }

  // Chapters: the toggle opens the list, a chapter seeks there, the one playing is marked.
  const toggle = document.getElementById("chapters-toggle");
  const list = document.getElementById("chapter-list");
  if (toggle && list && c.chapters.length) {
    const buttons = Array.from(list.querySelectorAll<HTMLButtonElement>("button[data-chapter]"));
    toggle.addEventListener("click", () => {
      list.hidden = !list.hidden;
      toggle.setAttribute("aria-expanded", String(!list.hidden));
    });
    for (const b of buttons) {
      b.addEventListener("click", () => {
        video.currentTime = c.chapters[Number(b.dataset.chapter)].startS;
        video.play().catch(() => {});
      });
    }
    video.addEventListener("timeupdate", () => {
      let current = -1;
      c.chapters.forEach((ch, i) => {
        if (video.currentTime >= ch.startS) current = i;
      });
      buttons.forEach((b, i) => b.setAttribute("aria-current", String(i === current)));
    });
  }

  setState("loading");
  probe();
}

/** The player's source, serialised once (it never changes). */
const PLAYER_SOURCE = playerMain.toString();
