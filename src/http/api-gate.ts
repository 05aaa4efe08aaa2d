import { authenticate } from "../auth/service";
import type { Environment, RateCategory } from "../config";
import type { AppContext, ScopeCtx } from "../context";
import { rateLimitedAddress } from "./client-address";
import { ApiError, tooManyRequests } from "./errors";
import { RateLimiter, rateCategory } from "./rate-limit";

const EXPOSED = "X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Retry-After, Retry-After, Content-Range, Accept-Ranges";

/** A preflight's answer: what browsers (the TypeScript uploader, players) may send, for 10 minutes. */
const PREFLIGHT = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, POST, PUT, PATCH, DELETE, OPTIONS",
  "access-control-allow-headers": "Authorization, Content-Type, Content-Range, Range, AV-Origin-Client, AV-Origin-App, AV-Origin-Sdk",
  "access-control-expose-headers": EXPOSED,
  "access-control-max-age": "600",
};

/** Not API traffic: players fetch segments by the hundred (player event reports have their own per-address limit); these answers carry no rate-limit headers. */
function unmetered(path: string): boolean {
  return path.startsWith("/vod/") || path.startsWith("/live/") || path.startsWith("/assets/") || path.startsWith("/swagger") || path === "/health" || path === "/favicon.ico" || path === "/analytics/events";
}

/** Routes whose Authorization header is ignored (the body's key or the upload token decides). */
function ignoresAuthorization(path: string): boolean {
  return path.startsWith("/auth/") || path === "/upload" || path === "/upload/";
}

/**
 * The front door of one main-API listener: CORS, authentication (resolved once per request, here, so
 * the limiter can count by key) and api.video's per-minute limits. A request counts against the API
 * key its Authorization header resolves to: Basic with the key, or a bearer token, which counts
 * against the key it was minted from. Anything else (no header, a bad or expired credential, a key of
 * the other environment, and /auth/* and /upload, which ignore the header) counts against the client's
 * address, which `addressOf` gives (X-Forwarded-For counts only from a trusted proxy: any client can send it).
 */
export function apiGate(app: AppContext, environment: Environment, addressOf: (request: Request) => string) {
  // One counter per budget: a request's identity (its key id, most often) is then the map key as is.
  const limiters: Record<RateCategory, RateLimiter> = {
    uploads: new RateLimiter(60_000, app.clock),
    writes: new RateLimiter(60_000, app.clock),
    reads: new RateLimiter(60_000, app.clock),
  };
  const limits = app.config.rateLimits[environment];
  const resolved = new WeakMap<Request, ScopeCtx | ApiError>();

  const credential = (request: Request): ScopeCtx | ApiError => {
    try {
      return authenticate(app, environment, request.headers.get("authorization") ?? undefined);
    } catch (err) {
      if (err instanceof ApiError) return err;
      throw err;
    }
  };

  return {
    /** The onRequest hook: answers preflights, sets the CORS and rate-limit headers, throws 429 beyond the limit. */
    admit(request: Request, path: string, headers: Record<string, unknown>): Response | undefined {
      headers["access-control-allow-origin"] = "*";
      headers["access-control-expose-headers"] = EXPOSED;
      if (request.method === "OPTIONS") return new Response(null, { status: 204, headers: PREFLIGHT });
      if (unmetered(path)) return;
      let identity: string | undefined;
      if (!ignoresAuthorization(path)) {
        const outcome = credential(request);
        resolved.set(request, outcome);
        if (!(outcome instanceof ApiError)) identity = outcome.apiKeyId;
      }
      identity ??= `address:${rateLimitedAddress(addressOf(request)) || "unknown"}`;
      const category = rateCategory(request.method, path);
      const decision = limiters[category].hit(identity, limits[category]);
      headers["x-ratelimit-limit"] = String(decision.limit);
      headers["x-ratelimit-remaining"] = String(decision.remaining);
      headers["x-ratelimit-retry-after"] = String(decision.retryAfterS);
      if (!decision.allowed) throw tooManyRequests(decision.retryAfterS);
    },

    /** The request's scope, authenticated by `admit` (or now, for a request it did not see); throws the 401. */
    scope(request: Request): ScopeCtx {
      const outcome = resolved.get(request) ?? credential(request);
      if (outcome instanceof ApiError) throw outcome;
      return outcome;
    },
  };
}

export type ApiGate = ReturnType<typeof apiGate>;
