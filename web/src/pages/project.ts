import { api } from "../api";
import { h, mount, notice } from "../dom";
import type { View } from "../main";
import type { Environment, Project } from "../types";
import { keysTab } from "./keys";
import { liveTab } from "./live";
import { projectBadges } from "./projects";
import { settingsTab } from "./settings";
import { usageTab } from "./usage";
import { videoPage } from "./video";
import { videosTab } from "./videos";
import { webhooksTab } from "./webhooks";

const TABS = [
  ["videos", "Videos"],
  ["live", "Live streams"],
  ["webhooks", "Webhooks"],
  ["keys", "API keys"],
  ["usage", "Usage"],
] as const;

/** What a tab of one project and environment gets. */
export interface ProjectView extends View {
  project: Project;
  environment: Environment;
  /** Re-reads the project and re-renders the page (after a mode change, a rename, ...). */
  reload(): void;
}

/** A project: its header, environment switch and tabs; `rest` is [environment, tab, ...] or ["settings"]. */
export async function projectPage(view: View, projectId: string, rest: string[]): Promise<void> {
  const project = await api<Project>("GET", `/projects/${encodeURIComponent(projectId)}`);
  if (view.left) return;
  const settings = rest[0] === "settings";
  const environment: Environment = rest[0] === "production" ? "production" : "sandbox";
  const tab = settings ? "settings" : (TABS.find(([id]) => id === rest[1])?.[0] ?? "videos");
  const base = `#/projects/${project.project_id}`;
  const body = h("div", { class: "tab-body" });
  const envLink = (env: Environment, label: string) =>
    h("a", { href: `${base}/${env}/${settings ? "videos" : tab}`, class: `seg${!settings && env === environment ? " active" : ""}`, "aria-current": !settings && env === environment ? "page" : null }, label);

  mount(view.root,
    h("div", { class: "page-head" },
      h("div", null,
        h("p", { class: "crumbs" }, h("a", { href: "#/projects" }, "Projects"), " / "),
        h("h1", { "data-testid": "project-name" }, project.name),
        h("div", { class: "badges" }, projectBadges(project))),
      h("a", { href: `${base}/settings`, class: `button secondary${settings ? " active" : ""}`, "data-testid": "project-settings" }, "Settings")),
    h("div", { class: "env-switch", role: "navigation", "aria-label": "Environment" }, envLink("sandbox", "Sandbox"), envLink("production", "Production")),
    settings ? null : h("nav", { class: "tabs", "aria-label": "Sections" },
      TABS.map(([id, label]) => h("a", { href: `${base}/${environment}/${id}`, class: id === tab ? "active" : "", "aria-current": id === tab ? "page" : null }, label))),
    body);

  const pv: ProjectView = { ...view, root: body, project, environment, reload: () => window.dispatchEvent(new HashChangeEvent("hashchange")) };
  Object.defineProperty(pv, "left", { get: () => view.left });
  if (settings) return settingsTab(pv);
  // Keys and usage belong to the admin API and work in either mode; resources need production enabled.
  if (environment === "production" && !project.production_enabled && tab !== "keys" && tab !== "usage") {
    mount(body,
      notice("This project is sandbox-only: production resources and production keys are refused until production is enabled.", "info"),
      h("button", {
        type: "button", "data-testid": "enable-production-inline",
        onclick: async () => {
          await api("PATCH", `/projects/${project.project_id}`, { production_enabled: true });
          pv.reload();
        },
      }, "Enable production"));
    return;
  }
  if (tab === "videos" && rest[2]) return videoPage(pv, rest[2]);
  const tabs = { videos: videosTab, live: liveTab, webhooks: webhooksTab, keys: keysTab, usage: usageTab };
  return tabs[tab as keyof typeof tabs](pv);
}
