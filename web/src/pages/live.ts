import { ApiError, api, scopeBase } from "../api";
import { badge, copyField, form, formatDate, h, keyedRenderer, mount, notice, updateChildren } from "../dom";
import type { LiveStream, MainList } from "../types";
import type { ProjectView } from "./project";
import { confirmButton } from "./settings";

/** Live streams: RTMP server and stream key to copy, broadcasting state, a live preview. */
export async function liveTab(view: ProjectView): Promise<void> {
  const base = scopeBase(view.project.project_id, view.environment);
  const list = h("div", { class: "stack", "data-testid": "live-streams" });
  const rtmpServer = `${view.session.urls.rtmp}/s`;
  let timer: ReturnType<typeof setTimeout> | undefined;
  view.onLeave(() => clearTimeout(timer));

  const fetchStreams = () => api<MainList<LiveStream>>("GET", `${base}/live-streams?pageSize=50&sortBy=createdAt&sortOrder=desc`);

  async function load(result?: MainList<LiveStream>): Promise<void> {
    clearTimeout(timer);
    result ??= await fetchStreams();
    if (view.left) return;
    if (result.data.length) updateChildren(list, cards(result.data));
    else mount(list, h("p", { class: "empty" }, "No live streams yet."));
    // The broadcasting state follows the encoder: look again every few seconds.
    timer = setTimeout(() => load().catch(() => undefined), 5000);
  }

  // A stream whose state did not change keeps its card, so a running preview is not reloaded.
  const cards = keyedRenderer((live: LiveStream) => live.liveStreamId, card);

  function card(live: LiveStream): HTMLElement {
    const preview = live.broadcasting && live.assets?.player
      ? h("iframe", { src: live.assets.player, title: `Live preview: ${live.name}`, allow: "autoplay; fullscreen", allowfullscreen: true })
      : h("div", { class: "preview-off" }, "Not broadcasting");
    return h("article", { class: "card live-card", "data-live-id": live.liveStreamId },
      h("div", { class: "live-head" },
        h("h3", null, live.name),
        live.broadcasting ? badge("● Live", "bad") : badge("Offline", "muted"),
        live.public === false ? badge("Private", "info") : null),
      h("div", { class: "live-layout" },
        h("div", { class: "player small-player" }, preview),
        h("div", { class: "stack" },
          copyField("RTMP server", rtmpServer),
          copyField("Stream key", live.streamKey, "stream-key"),
          copyField("Full RTMP URL", `${rtmpServer}/${live.streamKey}`),
          live.assets?.hls ? copyField("HLS", live.assets.hls) : null,
          h("p", { class: "muted small" }, live.createdAt ? `Created ${formatDate(live.createdAt)}` : "", " · H.264 + AAC, 2 s keyframes recommended."),
          h("div", { class: "actions" }, confirmButton("Delete", "Delete this live stream", async () => {
            await api("DELETE", `${base}/live-streams/${encodeURIComponent(live.liveStreamId)}`);
            await load();
          })))));
  }

  // Ask first: a server without live streams gets a note instead of a form.
  let first: MainList<LiveStream>;
  try {
    first = await fetchStreams();
  } catch (err) {
    if (!(err instanceof ApiError && err.unknownRoute)) throw err;
    if (!view.left) mount(view.root, notice("Live streaming is not available on this server yet: its /live-streams API answers “unrecognized request URL”.", "info"));
    return;
  }
  if (view.left) return;
  mount(view.root,
    h("section", { class: "card" },
      h("h2", null, "New live stream"),
      h("p", { class: "muted small" }, "Point OBS or ffmpeg at the RTMP server with the stream key."),
      form({ class: "inline", "data-testid": "create-live" }, async (data, el) => {
        await api("POST", `${base}/live-streams`, { name: String(data.get("name") ?? "").trim() });
        el.reset();
        await load();
      }, h("input", { name: "name", placeholder: "Live stream name", required: true, "aria-label": "Live stream name" }), h("button", { type: "submit" }, "Create"))),
    list);
  await load(first);
}
