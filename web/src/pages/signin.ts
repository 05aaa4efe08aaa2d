import { api } from "../api";
import { form, h } from "../dom";
import type { Session } from "../types";

/** The sign-in form: trades the admin key for a session cookie. */
export function signInPage(signedIn: (session: Session) => void): HTMLElement {
  return h("div", { class: "signin" },
    h("div", { class: "card signin-card" },
      h("h1", null, "Vidhost"),
      h("p", { class: "muted" }, "Sign in with the admin key printed at the first start (or set with VIDHOST_ADMIN_KEY)."),
      form({ class: "stack", "data-testid": "sign-in-form" }, async (data) => {
        signedIn(await api<Session>("POST", "/dashboard/session", { admin_key: String(data.get("admin_key") ?? "") }));
      },
      h("label", null, "Admin key", h("input", { type: "password", name: "admin_key", required: true, autocomplete: "current-password", autofocus: true })),
      h("button", { type: "submit" }, "Sign in"))));
}
