import { swagger } from "@elysiajs/swagger";
import { t } from "elysia";
import { analyticsCollectRoutes } from "../analytics/collect-routes";
import { analyticsRoutes } from "../analytics/routes";
import { authRoutes } from "../auth/routes";
import { captionRoutes } from "../captions/routes";
import { chapterRoutes } from "../chapters/routes";
import { summaryRoutes } from "../summaries/routes";
import type { Environment, RateCategory } from "../config";
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
import { tooManyRequests } from "./errors";
import { RateLimiter, requesterIdentity } from "./rate-limit";
import { requireScope } from "./scope";

const CORS = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, POST, PUT, PATCH, DELETE, OPTIONS",
  "access-control-allow-headers": "Authorization, Content-Type, Content-Range, Range, AV-Origin-Client, AV-Origin-App, AV-Origin-Sdk",
  "access-control-expose-headers": "X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Retry-After, Retry-After, Content-Range, Accept-Ranges",
  "access-control-max-age": "600",
};

/** Uploads are POSTs that carry files; every other non-GET is a write. */
function rateCategory(method: string, path: string): RateCategory {
  if (method === "GET" || method === "HEAD") return "reads";
  if (method === "POST" && /\/(source|thumbnail|logo|upload|watermarks)$|\/(captions|chapters)\//.test(path)) return "uploads";
  return "writes";
}

const health = t.Object({ status: t.Literal("ok") });

/** The main API of one environment (production or sandbox listener). */
export function mainApi(app: AppContext, environment: Environment) {
  const limiter = new RateLimiter(60_000, app.clock);
  const scoped = requireScope(app, environment);
  return baseApp(app, `api-${environment}`)
    .onRequest(({ request, path, set }) => {
      Object.assign(set.headers, CORS);
      if (request.method === "OPTIONS") return new Response(null, { status: 204, headers: CORS });
      // Players fetch segments by the hundred: delivery is not API traffic and is not rate limited.
      if (path === "/health" || path === "/favicon.ico" || path.startsWith("/swagger") || path.startsWith("/vod/") || path.startsWith("/live/") || path.startsWith("/assets/") || path === "/analytics/events") return;
      const category = rateCategory(request.method, path);
      const decision = limiter.hit(`${category}:${requesterIdentity(request)}`, app.config.rateLimits[environment][category]);
      set.headers["x-ratelimit-limit"] = String(decision.limit);
      set.headers["x-ratelimit-remaining"] = String(decision.remaining);
      set.headers["x-ratelimit-retry-after"] = String(decision.retryAfterS);
      if (!decision.allowed) throw tooManyRequests(decision.retryAfterS);
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
    .use(analyticsCollectRoutes(app, environment));
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
