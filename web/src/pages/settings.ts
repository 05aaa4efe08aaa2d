import { api } from "../api";
import { badge, form, formatDate, h, mount } from "../dom";
import type { Project } from "../types";
import type { ProjectView } from "./project";

/** Two-step button: the first click asks, the second does. */
export function confirmButton(label: string, confirmLabel: string, action: () => Promise<void>, attrs: Record<string, unknown> = {}): HTMLElement {
  const box = h("span", { class: "confirm" });
  const ask = () =>
    mount(box, h("button", { type: "button", class: "danger", ...attrs, onclick: () => mount(box,
      h("button", { type: "button", class: "danger", "data-testid": attrs["data-testid"] ? `${attrs["data-testid"]}-confirm` : null, onclick: async (e: Event) => {
        (e.target as HTMLButtonElement).disabled = true;
        try {
          await action();
        } catch (err) {
          mount(box, h("span", { class: "notice error" }, err instanceof Error ? err.message : String(err)));
        }
      } }, confirmLabel),
      h("button", { type: "button", class: "secondary", onclick: ask }, "Cancel")) }, label));
  ask();
  return box;
}

/** Project settings: rename, the sandbox-only ⇄ production switch, scheduled deletion. */
export async function settingsTab(view: ProjectView): Promise<void> {
  const p = view.project;
  const patch = async (body: Record<string, unknown>) => {
    await api<Project>("PATCH", `/projects/${p.project_id}`, body);
    view.reload();
  };
  mount(view.root,
    h("section", { class: "card" },
      h("h2", null, "Name"),
      form({ class: "inline", "data-testid": "rename-project" }, async (data) => patch({ name: String(data.get("name") ?? "").trim() }),
        h("input", { name: "name", value: p.name, required: true, maxlength: 255, "aria-label": "Project name" }),
        h("button", { type: "submit" }, "Rename")),
      h("p", { class: "muted small" }, "Id ", h("code", null, p.project_id), ` · created ${formatDate(p.created_at)}`)),
    h("section", { class: "card" },
      h("h2", null, "Mode"),
      h("p", null, p.production_enabled ? badge("Production enabled", "ok") : badge("Sandbox only", "info")),
      h("p", { class: "muted small" }, p.production_enabled
        ? "Production keys work on the production API. Disabling production makes them fail at once (nothing is deleted)."
        : "Only sandbox keys work: videos are cut to 30 s, watermarked and deleted after 24 hours. Enable production to use production keys."),
      p.production_enabled
        ? confirmButton("Disable production", "Yes, disable production", () => patch({ production_enabled: false }), { "data-testid": "disable-production" })
        : h("button", { type: "button", "data-testid": "enable-production", onclick: () => patch({ production_enabled: true }) }, "Enable production")),
    h("section", { class: "card" },
      h("h2", null, "Deletion"),
      p.deletes_at
        ? [h("p", { "data-testid": "deletion-scheduled" }, "This project and all its media will be deleted on ", h("strong", null, formatDate(p.deletes_at)), "."),
          h("button", { type: "button", class: "secondary", "data-testid": "cancel-deletion", onclick: () => patch({ deletes_at: null }) }, "Cancel the deletion")]
        : [h("p", { class: "muted small" }, "Deletion happens on the first day of next month and removes every video, key, webhook and file of the project."),
          confirmButton("Schedule deletion", "Yes, delete it next month", () => patch({ deletes_at: "next_cycle" }), { "data-testid": "schedule-deletion" })]));
}
