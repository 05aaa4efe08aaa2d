import { Elysia, t } from "elysia";
import type { AppContext } from "../context";
import { limitAdmin } from "../http/admin-auth";
import { adminErrors } from "../http/admin-list";
import { notFound, unauthorized } from "../http/errors";
import type { RateLimiter } from "../http/rate-limit";
import { atom } from "../clock";
import { ASSET_PATH, dashboardAssets } from "./assets";
import { projectApiRoutes } from "./project-api";
import { closeSession, openSession, sessionCookie, sessionFor, sessionSecret } from "./session";

const sessionBody = t.Object({
  expires_at: t.String(),
  /** Where the dashboard's links point: player pages, thumbnails and RTMP ingest. */
  urls: t.Object({ production: t.String(), sandbox: t.String(), admin: t.String(), rtmp: t.String() }),
});

/** The web dashboard on the admin listener: its page and files, sign-in and sign-out, and the project API it calls. */
export function dashboardRoutes(app: AppContext, limiter: RateLimiter) {
  const assets = dashboardAssets(app);
  const describe = (expiresAt: number) => ({ expires_at: atom(new Date(expiresAt)), urls: app.urls });
  return new Elysia({ normalize: false })
    .get("/", () => assets.page(), { detail: { hide: true } })
    .get(`${ASSET_PATH}:file`, async ({ params }) => {
      const answer = await assets.file(params.file);
      if (!answer) throw notFound("file");
      return answer;
    }, { params: t.Object({ file: t.String() }), detail: { hide: true } })
    .post("/dashboard/session", ({ body, set }) => {
      // Sign-in attempts share one budget: guessing the admin key is as slow as the admin API allows.
      limitAdmin(app, limiter, "sign-in", set.headers);
      const session = openSession(app, body.admin_key);
      set.status = 201;
      set.headers["set-cookie"] = sessionCookie(app, session.secret, session.expiresAt);
      set.headers["cache-control"] = "no-store";
      return describe(session.expiresAt);
    }, {
      body: t.Object({ admin_key: t.String({ minLength: 1, maxLength: 1000 }) }, { additionalProperties: false }),
      response: { 201: sessionBody, ...adminErrors },
      detail: { summary: "Sign in to the dashboard with the admin key: sets an HttpOnly, SameSite=Strict session cookie", tags: ["Dashboard"] },
    })
    .get("/dashboard/session", ({ request, set }) => {
      const secret = sessionSecret(request.headers.get("cookie"));
      const session = secret ? sessionFor(app, secret) : null;
      if (!session) throw unauthorized("authentication-invalid-session", "You are not signed in.", "Sign in with the admin key.");
      limitAdmin(app, limiter, `session:${session.hash}`, set.headers);
      set.headers["cache-control"] = "no-store";
      return describe(session.expiresAt);
    }, {
      response: { 200: sessionBody, ...adminErrors },
      detail: { summary: "The current dashboard session", tags: ["Dashboard"] },
    })
    .delete("/dashboard/session", ({ request, set }) => {
      // No credential needed to drop one: an expired session can still be cleared from the browser.
      const secret = sessionSecret(request.headers.get("cookie"));
      if (secret) closeSession(app, secret);
      set.headers["set-cookie"] = sessionCookie(app, "", 0);
      set.status = 204;
    }, {
      response: { 204: t.Void(), ...adminErrors },
      detail: { summary: "Sign out of the dashboard", tags: ["Dashboard"] },
    })
    .use(projectApiRoutes(app, limiter));
}
