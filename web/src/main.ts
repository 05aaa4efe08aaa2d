// The Vidhost dashboard: a single page on the admin listener. Views are #fragments; every call goes
// to the same origin with the HttpOnly session cookie.
import "../styles.css";
import { api, whenSignedOut } from "./api";
import { h, mount } from "./dom";
import { projectPage } from "./pages/project";
import { projectsPage } from "./pages/projects";
import { signInPage } from "./pages/signin";
import type { Session } from "./types";

export interface View {
  /** Where the page renders. */
  root: HTMLElement;
  session: Session;
  /** Runs `fn` when the user navigates away (stop polling, etc.). */
  onLeave(fn: () => void): void;
  /** True once the user has navigated away. */
  readonly left: boolean;
}

const app = document.getElementById("app")!;
let session: Session | null = null;
let leaving: (() => void)[] = [];
let generation = 0;

function shell(content: HTMLElement): HTMLElement {
  return h("div", { class: "layout" },
    h("header", { class: "topbar" },
      h("a", { href: "#/projects", class: "brand" }, "Vidhost"),
      h("nav", null,
        h("a", { href: "#/projects" }, "Projects"),
        h("button", { type: "button", class: "ghost", "data-testid": "sign-out", onclick: signOut }, "Sign out"))),
    h("main", { class: "content" }, content));
}

async function signOut(): Promise<void> {
  await api("DELETE", "/dashboard/session").catch(() => undefined);
  session = null;
  location.hash = "#/";
  render();
}

/** Shows the view the fragment names. */
async function render(): Promise<void> {
  const mine = ++generation;
  leaving.forEach((fn) => fn());
  leaving = [];
  if (!session) {
    mount(app, signInPage((s) => {
      session = s;
      if (!location.hash || location.hash === "#/") location.hash = "#/projects";
      render();
    }));
    return;
  }
  const content = h("div");
  mount(app, shell(content));
  const view: View = {
    root: content,
    session,
    onLeave: (fn) => leaving.push(fn),
    get left() {
      return mine !== generation;
    },
  };
  const parts = location.hash.replace(/^#\/?/, "").split("?")[0].split("/").filter(Boolean).map(decodeURIComponent);
  try {
    if (parts[0] === "projects" && parts[1]) await projectPage(view, parts[1], parts.slice(2));
    else await projectsPage(view);
  } catch (err) {
    if (!view.left) mount(content, h("p", { class: "notice error", role: "alert" }, err instanceof Error ? err.message : String(err)));
  }
}

whenSignedOut(() => {
  if (!session) return;
  session = null;
  render();
});
window.addEventListener("hashchange", () => render());

// Resume a session the cookie still holds, else show the sign-in form.
api<Session>("GET", "/dashboard/session")
  .then((s) => (session = s))
  .catch(() => (session = null))
  .finally(() => render());
