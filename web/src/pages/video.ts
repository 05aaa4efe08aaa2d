import { api, scopeBase } from "../api";
import { copyField, formatDate, h, mount } from "../dom";
import type { Video, VideoStatus } from "../types";
import type { ProjectView } from "./project";
import { confirmButton } from "./settings";
import { qualityChips, videoState } from "./videos";

/** One video: its player (the real player page in an iframe), per-quality status, links. */
export async function videoPage(view: ProjectView, videoId: string): Promise<void> {
  const base = scopeBase(view.project.project_id, view.environment);
  const back = `#/projects/${view.project.project_id}/${view.environment}/videos`;
  const video = await api<Video>("GET", `${base}/videos/${encodeURIComponent(videoId)}`);
  if (view.left) return;
  const statusBox = h("div", { "data-testid": "video-status" });
  let timer: ReturnType<typeof setTimeout> | undefined;
  view.onLeave(() => clearTimeout(timer));

  async function poll(): Promise<void> {
    const s = await api<VideoStatus>("GET", `${base}/videos/${encodeURIComponent(videoId)}/status`);
    if (view.left) return;
    const m = s.encoding.metadata;
    mount(statusBox,
      videoState({ ingest: (s.ingest.status ?? null) as never, playable: s.encoding.playable, failureReason: s.encoding.failureReason ?? null, qualities: s.encoding.qualities }),
      qualityChips(s.encoding.qualities),
      m.width ? h("p", { class: "muted small" }, `Source ${m.width}×${m.height}, ${m.duration} s, ${m.videoCodec ?? "?"}/${m.audioCodec ?? "no audio"}, ${m.framerate} fps`) : null,
      s.encoding.failureReason ? h("p", { class: "error-text" }, s.encoding.failureReason) : null);
    const done = s.encoding.qualities.length > 0 && s.encoding.qualities.every((q) => q.status === "encoded" || q.status === "failed");
    if (!done) timer = setTimeout(() => poll().catch(() => undefined), 2000);
  }

  mount(view.root,
    h("p", { class: "crumbs" }, h("a", { href: back }, "← Videos")),
    h("div", { class: "video-layout" },
      h("div", { class: "player" },
        h("iframe", { src: video.assets.player, title: `Player: ${video.title}`, allow: "autoplay; fullscreen; picture-in-picture", allowfullscreen: true, "data-testid": "player" })),
      h("section", { class: "card" },
        h("h2", null, video.title),
        h("p", { class: "muted small" }, `Created ${formatDate(video.createdAt)}`, video.deletesAt ? ` · deleted ${formatDate(video.deletesAt)}` : ""),
        statusBox,
        copyField("Player", video.assets.player),
        copyField("HLS", video.assets.hls),
        video.assets.mp4 ? copyField("MP4", video.assets.mp4) : null,
        copyField("Video id", video.videoId),
        h("div", { class: "actions" }, confirmButton("Delete video", "Delete it now", async () => {
          await api("DELETE", `${base}/videos/${encodeURIComponent(videoId)}`);
          location.hash = back;
        })))));
  await poll();
}
