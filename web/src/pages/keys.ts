import { api } from "../api";
import { copyField, form, formatDate, h, mount, notice } from "../dom";
import type { AdminList, ApiKey } from "../types";
import type { ProjectView } from "./project";
import { confirmButton } from "./settings";

/** API keys of one environment: create (value shown once), list masked, rename, revoke. */
export async function keysTab(view: ProjectView): Promise<void> {
  const { project, environment } = view;
  const base = `/projects/${project.project_id}/api-keys`;
  const created = h("div");
  const list = h("div");
  let page = 1;

  async function load(): Promise<void> {
    const result = await api<AdminList<ApiKey>>("GET", `${base}?environment=${environment}&page=${page}&page_size=50&sort_by=created_at&sort_order=desc`);
    if (view.left) return;
    const rel = (r: string) => result.links.some((l) => l.rel === r);
    mount(list, result.items.length
      ? h("table", { class: "table", "data-testid": "keys-table" },
        h("thead", null, h("tr", null, h("th", null, "Name"), h("th", null, "Key"), h("th", null, "Created"), h("th", null, ""))),
        h("tbody", null, result.items.map((key) => row(key))))
      : h("p", { class: "empty" }, `No ${environment} keys.`),
    rel("previous") || rel("next")
      ? h("div", { class: "pager" },
        h("button", { type: "button", class: "secondary", disabled: !rel("previous"), onclick: () => { page--; load(); } }, "Previous"),
        h("button", { type: "button", class: "secondary", disabled: !rel("next"), onclick: () => { page++; load(); } }, "Next"))
      : null);
  }

  function row(key: ApiKey): HTMLElement {
    const nameCell = h("td", { "data-label": "Name" }, key.name);
    const rename = h("button", { type: "button", class: "secondary small", onclick: () => {
      mount(nameCell, form({ class: "inline tight", "data-testid": "rename-key" }, async (data) => {
        await api("PATCH", `${base}/${key.api_key_id}`, { name: String(data.get("name") ?? "").trim() });
        await load();
      }, h("input", { name: "name", value: key.name, required: true, maxlength: 255, "aria-label": "Key name" }), h("button", { type: "submit", class: "small" }, "Save")));
    } }, "Rename");
    return h("tr", { "data-key-id": key.api_key_id },
      nameCell,
      h("td", { "data-label": "Key" }, h("code", { class: "masked" }, key.value)),
      h("td", { "data-label": "Created" }, formatDate(key.created_at)),
      h("td", { class: "actions" }, rename, confirmButton("Revoke", "Revoke now", async () => {
        await api("DELETE", `${base}/${key.api_key_id}`);
        created.replaceChildren();
        await load();
      }, { "data-testid": "revoke-key", class: "danger small" })));
  }

  mount(view.root,
    h("section", { class: "card" },
      h("h2", null, `New ${environment} key`),
      environment === "production" && !project.production_enabled
        ? notice("Production keys can be created now but work only once production is enabled.", "info")
        : null,
      form({ class: "inline", "data-testid": "create-key" }, async (data, el) => {
        const key = await api<ApiKey>("POST", base, { name: String(data.get("name") ?? "").trim(), environment });
        el.reset();
        mount(created, h("div", { class: "secret-once", "data-testid": "new-key" },
          h("p", null, h("strong", null, `“${key.name}” created.`), " Copy the key now: it is shown only once."),
          copyField("API key", key.value, "new-key-value")));
        await load();
      },
      h("input", { name: "name", placeholder: "Key name", required: true, maxlength: 255, "aria-label": "Key name" }),
      h("button", { type: "submit" }, "Create key")),
      created),
    h("section", { class: "card" },
      h("h2", null, `${environment === "sandbox" ? "Sandbox" : "Production"} keys`),
      h("p", { class: "muted small" }, `Use them on the ${environment} API: `, h("code", null, view.session.urls[environment])),
      list));
  await load();
}
