import { api } from "../api";
import { barChart, levelChart } from "../charts";
import { h, mount } from "../dom";
import type { DeliveryUsage, HostingUsage } from "../types";
import type { ProjectView } from "./project";

/** Hosting (minutes hosted) and delivery (minutes served) of one environment, per day. */
export async function usageTab(view: ProjectView): Promise<void> {
  const charts = h("div", { class: "charts", "data-testid": "usage-charts" });
  let interval: "week" | "month" = "month";

  async function load(): Promise<void> {
    const query = `interval=${interval}&environment=${view.environment}`;
    const base = `/projects/${view.project.project_id}`;
    const [hosting, delivery] = await Promise.all([
      api<HostingUsage>("GET", `${base}/hosting-usage?${query}`),
      api<DeliveryUsage>("GET", `${base}/delivery-usage?${query}`),
    ]);
    if (view.left) return;
    const days = hosting.items.map((i) => i.collected_on);
    mount(charts,
      levelChart({ title: "Video hosted", unit: "minutes", days, values: hosting.items.map((i) => i.video_duration_minutes), tone: "tone-a", label: "Hosted" }),
      barChart({
        title: "Delivered", unit: "minutes", days: delivery.items.map((i) => i.collected_on),
        series: [
          { label: "Video HLS", values: delivery.items.map((i) => i.video_hls_duration_minutes), tone: "tone-a" },
          { label: "Video MP4", values: delivery.items.map((i) => i.video_mp4_duration_minutes), tone: "tone-b" },
          { label: "Live HLS", values: delivery.items.map((i) => i.live_stream_hls_duration_minutes), tone: "tone-c" },
        ],
      }));
  }

  const toggle = (value: "week" | "month", label: string) =>
    h("button", { type: "button", class: `seg${interval === value ? " active" : ""}`, "data-interval": value, onclick: (e: Event) => {
      interval = value;
      (e.target as HTMLElement).parentElement?.querySelectorAll(".seg").forEach((b) => b.classList.toggle("active", (b as HTMLElement).dataset.interval === value));
      load();
    } }, label);
  mount(view.root,
    h("section", { class: "card" },
      h("div", { class: "live-head" }, h("h2", null, `${view.environment === "sandbox" ? "Sandbox" : "Production"} usage`),
        h("div", { class: "env-switch small" }, toggle("week", "7 days"), toggle("month", "30 days"))),
      h("p", { class: "muted small" }, "Hosted: minutes of encoded video the API shows at the end of each day (discarded videos are not hosted). Delivered: minutes of HLS segments and MP4 bytes served that day (UTC)."),
      charts));
  await load();
}
