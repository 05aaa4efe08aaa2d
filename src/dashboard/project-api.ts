// The main API of one project and environment, embedded in the admin listener for the dashboard:
// `/projects/{project_id}/environments/{environment}/videos/...` runs the very routes, validation and
// service verbs of the production and sandbox listeners, authorised by the admin key or a dashboard
// session instead of an API key. The browser therefore never holds an API key or token.
import { Elysia, t } from "elysia";
import { eq } from "drizzle-orm";
import type { Environment } from "../config";
import type { AppContext, ScopeCtx } from "../context";
import { projects } from "../db/schema";
import { admitAdmin } from "../http/admin-auth";
import { baseApp } from "../http/app";
import { ApiError, notFound } from "../http/errors";
import type { RateLimiter } from "../http/rate-limit";
import { apiErrors } from "../http/schemas";
import type { ScopePlugin } from "../http/scope";
import { liveStreamRoutes } from "../live/routes";
import { videoRoutes } from "../videos/routes";
import { webhookRoutes } from "../webhooks/routes";
import { recentDeliveries, videoOverview } from "./extras";

/** The scope of a project and environment for an admin caller, or why not (404, or 403 while production is off). */
export function adminScope(app: AppContext, projectId: string, environment: string): ScopeCtx {
  if (environment !== "sandbox" && environment !== "production") throw notFound("environment");
  const project = app.db.select().from(projects).where(eq(projects.id, projectId)).get();
  if (!project || project.deleted) throw notFound("project_id");
  if (environment === "production" && !project.productionEnabled) {
    throw new ApiError(403, "production-not-enabled", "Production is not enabled for this project.", {
      name: "environment", detail: "The project is sandbox-only: enable production first.",
    });
  }
  return { ...app, projectId, environment: environment as Environment, apiKeyId: "" };
}

/** Main-API routes the dashboard uses (videos, webhooks, live streams), plus its read models, behind `scopes` (keyed by the forwarded request). */
function innerApi(app: AppContext, scopes: WeakMap<Request, ScopeCtx>) {
  const scoped: ScopePlugin = new Elysia().resolve({ as: "scoped" }, ({ request }) => {
    const scope = scopes.get(request);
    if (!scope) throw notFound("project_id");
    return { scope };
  });
  const extras = new Elysia({ normalize: false })
    .use(scoped)
    .get("/video-overview", ({ scope, request }) => videoOverview(scope, request.url), {
      query: t.Object({}, { additionalProperties: true }),
      response: { 200: t.Any(), ...apiErrors },
      detail: { hide: true },
    })
    .get("/webhooks/:webhookId/deliveries", ({ scope, params, query }) => recentDeliveries(scope, params.webhookId, Number(query.limit ?? 20)), {
      params: t.Object({ webhookId: t.String() }),
      query: t.Object({ limit: t.Optional(t.String({ pattern: "^(?:[1-9]|[1-9][0-9]|100)$", error: "This attribute must be an integer from 1 to 100." })) }, { additionalProperties: false }),
      response: { 200: t.Any(), ...apiErrors },
      detail: { hide: true },
    });
  return baseApp(app, "dashboard-project-api")
    .use(videoRoutes(scoped))
    .use(webhookRoutes(scoped))
    .use(liveStreamRoutes(scoped))
    .use(extras);
}

/** A path segment decoded; a malformed escape names nothing that exists (404), it is not a fault. */
function decodedSegment(segment: string, name: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw notFound(name);
  }
}

/**
 * Hands `/projects/{project_id}/environments/{environment}/*` to the embedded main API: admin
 * authentication and rate limit first, then the request goes on with the prefix removed. This runs
 * at `onRequest`, before any body parsing, so the body stays a stream (chunked uploads stay flat in
 * memory) and the inner API's own validation and 404/405 answers apply.
 */
export function projectApiRoutes(app: AppContext, limiter: RateLimiter) {
  const scopes = new WeakMap<Request, ScopeCtx>();
  const inner = innerApi(app, scopes);
  const route = /^\/projects\/([^/]+)\/environments\/([^/]+)(\/.*)$/;
  return new Elysia({ name: "dashboard-project-api" }).onRequest(async ({ request, set }) => {
    const url = new URL(request.url);
    const m = route.exec(url.pathname);
    if (!m) return;
    admitAdmin(app, limiter, request, set.headers);
    const scope = adminScope(app, decodedSegment(m[1], "project_id"), decodedSegment(m[2], "environment"));
    url.pathname = m[3];
    const forwarded = new Request(url, {
      method: request.method, headers: request.headers, body: request.body, signal: request.signal,
      // @ts-expect-error Bun accepts `duplex` for streamed request bodies; lib.dom's RequestInit lacks it.
      duplex: "half",
    });
    scopes.set(forwarded, scope);
    const answer = await inner.handle(forwarded);
    for (const [k, v] of Object.entries(set.headers)) if (k.startsWith("x-ratelimit-")) answer.headers.set(k, String(v));
    return answer;
  });
}
