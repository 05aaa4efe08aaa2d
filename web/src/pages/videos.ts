import { api, scopeBase } from "../api";
import { badge, h, keyedRenderer, mount, notice, updateChildren } from "../dom";
import type { MainList, Quality, Video, VideoOverview } from "../types";
import { uploadInChunks, xhrSender } from "../upload";
import type { ProjectView } from "./project";

const PAGE_SIZE = 24;

/** One chip per rendition: "720p hls ✓", coloured by status. */
export function qualityChips(qualities: Quality[]): HTMLElement {
  const tone = { encoded: "ok", encoding: "warn", waiting: "muted", failed: "bad" } as const;
  const mark = { encoded: "✓", encoding: "…", waiting: "·", failed: "✗" } as const;
  return h("div", { class: "chips" }, qualities.map((q) =>
    h("span", { class: `badge ${tone[q.status]}`, title: `${q.type.toUpperCase()} ${q.quality}: ${q.status}`, "data-quality": `${q.type}-${q.quality}`, "data-status": q.status },
      `${q.quality} ${q.type === "mp4" ? "MP4" : "HLS"} ${mark[q.status]}`)));
}

/** A short state of a video: uploading, processing, playable, failed. */
export function videoState(o: Pick<VideoOverview, "ingest" | "playable" | "failureReason" | "qualities">): HTMLElement {
  if (o.failureReason && !o.playable) return badge("Failed", "bad");
  if (o.ingest === null) return badge("Waiting for upload", "muted");
  if (o.ingest === "uploading") return badge("Uploading", "info");
  if (o.playable) return badge(o.qualities.every((q) => q.status === "encoded") ? "Ready" : "Playable", "ok");
  return badge("Processing", "warn");
}

const finished = (o: VideoOverview) =>
  o.ingest !== null && o.ingest !== "uploading" && o.qualities.length > 0 && o.qualities.every((q) => q.status === "encoded" || q.status === "failed");

/** Videos of one project and environment: upload in chunks with progress, list with thumbnails and per-quality status. */
export async function videosTab(view: ProjectView): Promise<void> {
  const base = scopeBase(view.project.project_id, view.environment);
  const grid = h("div", { class: "video-grid", "data-testid": "videos" });
  const pager = h("div", { class: "pager" });
  let page = 1;
  let timer: ReturnType<typeof setTimeout> | undefined;
  view.onLeave(() => clearTimeout(timer));

  async function load(): Promise<void> {
    clearTimeout(timer);
    const result = await api<MainList<VideoOverview>>("GET", `${base}/video-overview?currentPage=${page}&pageSize=${PAGE_SIZE}&sortBy=createdAt&sortOrder=desc`);
    if (view.left) return;
    if (result.data.length) updateChildren(grid, cards(result.data));
    else mount(grid, h("p", { class: "empty" }, "No videos yet: upload one above."));
    const p = result.pagination;
    mount(pager, p.pagesTotal > 1 ? [
      h("button", { type: "button", class: "secondary", disabled: page <= 1, onclick: () => { page--; load(); } }, "Previous"),
      h("span", { class: "muted" }, `Page ${p.currentPage} of ${p.pagesTotal} · ${p.itemsTotal} videos`),
      h("button", { type: "button", class: "secondary", disabled: page >= p.pagesTotal, onclick: () => { page++; load(); } }, "Next"),
    ] : null);
    // Keep watching while something is uploading or encoding.
    if (result.data.some((o) => !finished(o) && !o.failureReason)) timer = setTimeout(() => load().catch(() => undefined), 2000);
  }

  // Polling rebuilds only the cards whose video changed: thumbnails do not flicker.
  const cards = keyedRenderer((o: VideoOverview) => o.video.videoId, card);

  function card(o: VideoOverview): HTMLElement {
    const href = `#/projects/${view.project.project_id}/${view.environment}/videos/${o.video.videoId}`;
    return h("article", { class: "video-card", "data-video-id": o.video.videoId },
      h("a", { href, class: "thumb" },
        o.thumbnail
          ? h("img", { src: `${o.video.assets.thumbnail}?v=${encodeURIComponent(o.qualities.filter((q) => q.status === "encoded").length)}`, alt: "", loading: "lazy" })
          : h("span", { class: "thumb-empty" }, o.playable ? "No thumbnail" : "Processing")),
      h("div", { class: "video-meta" },
        h("a", { href, class: "video-title" }, o.video.title),
        h("div", { class: "state", "data-testid": "video-state" }, videoState(o)),
        qualityChips(o.qualities),
        o.failureReason ? h("p", { class: "small error-text" }, o.failureReason) : null));
  }

  mount(view.root, uploader(view, base, () => { page = 1; return load(); }), h("section", { class: "card" }, h("h2", null, "Videos"), grid, pager));
  await load();
}

/** The upload card: pick a file, create the video, send it in byte ranges with a progress bar. */
function uploader(view: ProjectView, base: string, uploaded: () => Promise<void>): HTMLElement {
  const input = h("input", { type: "file", accept: "video/*", "aria-label": "Video file", "data-testid": "upload-file" });
  const bar = h("progress", { max: 1, value: 0, "data-testid": "upload-progress", hidden: true });
  const status = h("p", { class: "muted small", role: "status", "data-testid": "upload-status" });
  const button = h("button", { type: "button", "data-testid": "upload-start" }, "Upload");
  button.addEventListener("click", async () => {
    const file = input.files?.[0];
    if (!file) {
      status.textContent = "Choose a file first.";
      return;
    }
    button.disabled = input.disabled = true;
    bar.hidden = false;
    bar.value = 0;
    try {
      const video = await api<Video>("POST", `${base}/videos`, { title: file.name.replace(/\.[^.]+$/, "") || file.name });
      await uploadInChunks(file, file.name, xhrSender(`${base}/videos/${video.videoId}/source`), (fraction) => {
        bar.value = fraction;
        status.textContent = `Uploading ${file.name}: ${Math.round(fraction * 100)} %`;
      });
      status.textContent = `${file.name} uploaded; encoding has started.`;
      input.value = "";
      await uploaded();
    } catch (err) {
      status.replaceChildren(notice(err instanceof Error ? err.message : String(err), "error"));
    } finally {
      button.disabled = input.disabled = false;
    }
  });
  return h("section", { class: "card" },
    h("h2", null, "Upload a video"),
    view.environment === "sandbox" ? h("p", { class: "muted small" }, "Sandbox: videos are cut to 30 s, watermarked, and deleted after 24 hours.") : null,
    h("div", { class: "inline" }, input, button),
    bar, status);
}
