import { api } from "../api";
import { badge, form, formatDate, h, mount } from "../dom";
import type { View } from "../main";
import type { AdminList, Project } from "../types";

const PAGE_SIZE = 20;

/** Mode and deletion badges of a project. */
export function projectBadges(p: Project): HTMLElement[] {
  return [
    p.production_enabled ? badge("Production enabled", "ok") : badge("Sandbox only", "info"),
    p.deletes_at ? badge(`Deleted on ${formatDate(p.deletes_at)}`, "bad") : null,
  ].filter((b): b is HTMLElement => b !== null);
}

/** The projects list: filter by name, page through, create a new one. */
export async function projectsPage(view: View): Promise<void> {
  let page = 1;
  let name = "";
  const list = h("div", { class: "list" });

  async function load(): Promise<void> {
    const query = new URLSearchParams({ page: String(page), page_size: String(PAGE_SIZE), sort_by: "created_at", sort_order: "desc" });
    if (name) query.set("name", name);
    const [result, count] = await Promise.all([
      api<AdminList<Project>>("GET", `/projects?${query}`),
      api<{ count: number }>("GET", `/projects/count${name ? `?name=${encodeURIComponent(name)}` : ""}`),
    ]);
    if (view.left) return;
    const rel = (r: string) => result.links.some((l) => l.rel === r);
    mount(list,
      h("p", { class: "muted small" }, `${count.count} project${count.count === 1 ? "" : "s"}${name ? ` matching “${name}”` : ""}`),
      result.items.length
        ? h("table", { class: "table", "data-testid": "projects-table" },
          h("thead", null, h("tr", null, h("th", null, "Name"), h("th", null, "Mode"), h("th", null, "Created"))),
          h("tbody", null, result.items.map((p) =>
            h("tr", null,
              h("td", { "data-label": "Name" }, h("a", { href: `#/projects/${p.project_id}/sandbox/videos` }, p.name), h("div", { class: "muted small mono" }, p.project_id)),
              h("td", { "data-label": "Mode" }, projectBadges(p)),
              h("td", { "data-label": "Created" }, formatDate(p.created_at))))))
        : h("p", { class: "empty" }, "No projects yet."),
      rel("previous") || rel("next")
        ? h("div", { class: "pager" },
          h("button", { type: "button", class: "secondary", disabled: !rel("previous"), onclick: () => { page--; load(); } }, "Previous"),
          h("span", { class: "muted" }, `Page ${page}`),
          h("button", { type: "button", class: "secondary", disabled: !rel("next"), onclick: () => { page++; load(); } }, "Next"))
        : null);
  }

  let timer: ReturnType<typeof setTimeout> | undefined;
  mount(view.root,
    h("div", { class: "page-head" }, h("h1", null, "Projects")),
    h("section", { class: "card" },
      h("h2", null, "New project"),
      h("p", { class: "muted small" }, "A new project is sandbox-only until you enable production."),
      form({ class: "inline", "data-testid": "create-project" }, async (data) => {
        const project = await api<Project>("POST", "/projects", { name: String(data.get("name") ?? "").trim() });
        location.hash = `#/projects/${project.project_id}/settings`;
      },
      h("input", { name: "name", placeholder: "Project name", required: true, maxlength: 255, "aria-label": "Project name" }),
      h("button", { type: "submit" }, "Create project"))),
    h("section", { class: "card" },
      h("input", {
        type: "search", placeholder: "Filter by name", "aria-label": "Filter by name", class: "filter",
        oninput: (e: Event) => {
          clearTimeout(timer);
          timer = setTimeout(() => { name = (e.target as HTMLInputElement).value.trim(); page = 1; load(); }, 250);
        },
      }),
      list));
  view.onLeave(() => clearTimeout(timer));
  await load();
}
