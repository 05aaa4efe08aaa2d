import { api, scopeBase } from "../api";
import { badge, copyField, form, formatDate, h, mount } from "../dom";
import type { Delivery, MainList, Webhook } from "../types";
import type { ProjectView } from "./project";
import { confirmButton } from "./settings";

const EVENTS = ["video.encoding.quality.completed", "video.source.recorded", "live-stream.broadcast.started", "live-stream.broadcast.ended"];

/** Webhooks with their recent deliveries: event, attempts, status codes. */
export async function webhooksTab(view: ProjectView): Promise<void> {
  const base = scopeBase(view.project.project_id, view.environment);
  const list = h("div", { class: "stack", "data-testid": "webhooks" });

  async function load(): Promise<void> {
    const result = await api<MainList<Webhook>>("GET", `${base}/webhooks?pageSize=100`);
    if (view.left) return;
    mount(list, result.data.length ? result.data.map(card) : h("p", { class: "empty" }, "No webhooks."));
  }

  function card(hook: Webhook): HTMLElement {
    const deliveries = h("div", null, h("p", { class: "muted small" }, "Loading deliveries…"));
    api<{ data: Delivery[] }>("GET", `${base}/webhooks/${hook.webhookId}/deliveries?limit=15`).then((r) => {
      mount(deliveries, r.data.length
        ? h("table", { class: "table compact", "data-testid": "deliveries" },
          h("thead", null, h("tr", null, h("th", null, "Event"), h("th", null, "Status"), h("th", null, "Attempts"), h("th", null, "Answers"), h("th", null, "When"))),
          h("tbody", null, r.data.map((d) => h("tr", null,
            h("td", { "data-label": "Event" }, d.event),
            h("td", { "data-label": "Status" }, badge(d.status, d.status === "delivered" ? "ok" : d.status === "failed" ? "bad" : "warn")),
            h("td", { "data-label": "Attempts" }, String(d.attempts.length)),
            h("td", { "data-label": "Answers" }, d.attempts.map((a) => h("code", { title: a.error ?? `${a.durationMs} ms`, class: "code-chip" }, a.statusCode ?? "no answer")).flatMap((c, i) => (i ? [" ", c] : [c]))),
            h("td", { "data-label": "When" }, formatDate(d.createdAt))))))
        : h("p", { class: "muted small" }, "No deliveries yet."));
    }).catch((err) => mount(deliveries, h("p", { class: "error-text" }, String(err.message ?? err))));
    return h("article", { class: "card" },
      h("div", { class: "live-head" }, h("h3", { class: "break" }, hook.url)),
      h("p", { class: "chips" }, hook.events.map((e) => badge(e, "info"))),
      copyField("Signature secret", hook.signatureSecret),
      h("h4", null, "Recent deliveries"),
      deliveries,
      h("div", { class: "actions" }, confirmButton("Delete webhook", "Delete it", async () => {
        await api("DELETE", `${base}/webhooks/${hook.webhookId}`);
        await load();
      })),
      h("p", { class: "muted small" }, `Created ${formatDate(hook.createdAt)}`));
  }

  mount(view.root,
    h("section", { class: "card" },
      h("h2", null, "New webhook"),
      form({ class: "stack", "data-testid": "create-webhook" }, async (data, el) => {
        const events = data.getAll("events").map(String);
        await api("POST", `${base}/webhooks`, { url: String(data.get("url") ?? "").trim(), events });
        el.reset();
        await load();
      },
      h("input", { name: "url", type: "url", placeholder: "https://example.com/hooks/vidhost", required: true, "aria-label": "Webhook URL" }),
      h("fieldset", { class: "checks" }, h("legend", null, "Events"), EVENTS.map((e, i) =>
        h("label", { class: "check" }, h("input", { type: "checkbox", name: "events", value: e, checked: i === 0 }), e))),
      h("button", { type: "submit" }, "Add webhook"))),
    list);
  await load();
}
