import { swagger } from "@elysiajs/swagger";
import { t } from "elysia";
import { analyticsCollectRoutes } from "../analytics/collect-routes";
import { analyticsRoutes } from "../analytics/routes";
import { authRoutes } from "../auth/routes";
import { captionRoutes } from "../captions/routes";
import { chapterRoutes } from "../chapters/routes";
import { summaryRoutes } from "../summaries/routes";
import type { Environment } from "../config";
import type { AppContext } from "../context";
import { dashboardRoutes } from "../dashboard/routes";
import { apiKeyRoutes } from "../keys/routes";
import { projectRoutes } from "../projects/routes";
import { webhookRoutes } from "../webhooks/routes";
import { assetRoutes, deliveryRoutes } from "../delivery/routes";
import { liveDeliveryRoutes } from "../live/delivery-routes";
import { liveStreamRoutes } from "../live/routes";
import { playerAssetRoutes, playerRoutes } from "../players/routes";
import { tagRoutes } from "../tags/routes";
import { uploadTokenRoutes } from "../upload-tokens/routes";
import { uploadRoutes } from "../uploads/routes";
import { usageRoutes } from "../usage/routes";
import { videoRoutes } from "../videos/routes";
import { discardedVideoRoutes } from "../videos/discarded-routes";
import { watermarkRoutes } from "../watermarks/routes";
import { requireAdmin } from "./admin-auth";
import { baseApp } from "./app";
import { clientAddress } from "./client-address";
import { apiGate } from "./api-gate";
import { RateLimiter } from "./rate-limit";
import { socketAddress } from "./servers";
import { requireScope } from "./scope";

const health = t.Object({ status: t.Literal("ok") });

/** The main API of one environment (production or sandbox listener). */
export function mainApi(app: AppContext, environment: Environment) {
  // `api` is bound before any request arrives, so the gate can ask its server for a socket's address.
  const addressOf = (request: Request): string => clientAddress(request, socketAddress(api, request), app.config.trustedProxies);
  const gate = apiGate(app, environment, addressOf);
  const scoped = requireScope(gate);
  const api = baseApp(app, `api-${environment}`)
    // Destructured, not passed whole: Elysia builds only the context fields a hook names (and `server`
    // would cost every route a getter). A body, not `=> gate.admit(…)`: Elysia takes a hook returning
    // a call for async and would then await it, and the whole request with it, on every request.
    .onRequest(function gateRequest({ request, path, set }) {
      const early = gate.admit(request, path, set.headers);
      if (early) return early;
    })
    .get("/health", () => ({ status: "ok" as const }), { response: { 200: health }, detail: { hide: true } })
    // Browsers ask every origin for an icon; the player pages have none, so answer quietly instead of a logged 404.
    .get("/favicon.ico", () => new Response(null, { status: 204 }), { detail: { hide: true } })
    .use(swagger({
      path: "/swagger",
      documentation: { info: { title: `Vidhost API (${environment})`, version: "1" } },
      exclude: ["/health"],
    }))
    .use(authRoutes(app, environment))
    .use(webhookRoutes(scoped))
    .use(videoRoutes(scoped))
    .use(discardedVideoRoutes(scoped))
    .use(captionRoutes(scoped))
    .use(chapterRoutes(scoped))
    .use(summaryRoutes(scoped))
    .use(uploadRoutes(app, environment))
    .use(uploadTokenRoutes(scoped))
    .use(tagRoutes(scoped))
    .use(watermarkRoutes(scoped))
    .use(deliveryRoutes(app, environment))
    .use(liveStreamRoutes(scoped))
    .use(liveDeliveryRoutes(app, environment))
    .use(playerRoutes(scoped)).use(playerAssetRoutes(app, environment))
    .use(assetRoutes())
    .use(analyticsRoutes(scoped))
    .use(analyticsCollectRoutes(app, environment, addressOf));
  return api;
}

/** The admin API and the web dashboard. */
export function adminApi(app: AppContext) {
  const limiter = new RateLimiter(1000, app.clock);
  const admin = requireAdmin(app, limiter);
  return baseApp(app, "admin", "admin")
    .get("/health", () => ({ status: "ok" as const }), { response: { 200: health }, detail: { hide: true } })
    .use(swagger({
      path: "/swagger",
      documentation: { info: { title: "Vidhost admin API", version: "1" } },
      exclude: ["/health"],
    }))
    .use(projectRoutes(app, admin))
    .use(apiKeyRoutes(app, admin))
    .use(usageRoutes(app, admin))
    .use(dashboardRoutes(app, limiter));
}

export type MainApi = ReturnType<typeof mainApi>;
export type AdminApi = ReturnType<typeof adminApi>;
