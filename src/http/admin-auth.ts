import { Elysia } from "elysia";
import type { AppContext } from "../context";
import { sessionFor, sessionSecret } from "../dashboard/session";
import { isAdminKey, adminKeyHash } from "./admin-key";
import { ApiError, tooManyRequests, unauthorized } from "./errors";
import type { RateLimiter } from "./rate-limit";

export { ADMIN_KEY_SETTING } from "./admin-key";

/** The admin key from a Basic header (`key:`), or null. */
function adminSecret(header: string): string | null {
  const m = /^basic\s+(.+)$/i.exec(header.trim());
  if (!m) return null;
  const decoded = Buffer.from(m[1], "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  return colon < 0 ? null : decoded.slice(0, colon);
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * A cookie rides along with any request the browser makes, so a cookie-authenticated write must come
 * from the dashboard's own pages. SameSite=Strict already keeps the cookie off cross-site requests;
 * this refuses cross-origin writes too (Sec-Fetch-Site, then Origin against Host).
 */
function checkSameOrigin(request: Request): void {
  if (SAFE_METHODS.has(request.method)) return;
  const site = request.headers.get("sec-fetch-site");
  const origin = request.headers.get("origin");
  let crossOrigin = site !== null && site !== "same-origin" && site !== "none";
  if (!crossOrigin && origin !== null) {
    try {
      crossOrigin = new URL(origin).host !== (request.headers.get("host") ?? new URL(request.url).host);
    } catch {
      crossOrigin = true;
    }
  }
  if (crossOrigin) {
    throw new ApiError(403, "authorization-cross-origin-request", "Cross-origin requests are refused.", { detail: "Dashboard sessions only accept writes from the dashboard itself." });
  }
}

/** Who made an admin request: its rate-limit identity (never a secret). */
export interface AdminCaller {
  via: "admin-key" | "session";
  identity: string;
}

/**
 * Authenticates an admin request: Basic with the admin key, or (without an Authorization header) the
 * dashboard's session cookie. Throws 401 when neither is valid, 403 for a cross-origin cookie write.
 */
export function authenticateAdmin(app: AppContext, request: Request): AdminCaller {
  const header = request.headers.get("authorization");
  if (header !== null) {
    const secret = adminSecret(header);
    if (secret !== null && isAdminKey(app, secret)) return { via: "admin-key", identity: `key:${adminKeyHash(app)}` };
  } else {
    const cookie = sessionSecret(request.headers.get("cookie"));
    const session = cookie ? sessionFor(app, cookie) : null;
    if (session) {
      checkSameOrigin(request);
      return { via: "session", identity: `session:${session.hash}` };
    }
  }
  throw unauthorized("authentication-invalid-api-key", "The admin key is missing or invalid.", "Use Basic auth with the admin key as the user name and an empty password, or sign in to the dashboard.");
}

/** Counts one request against the admin limit (per admin key or per session); sets the headers, throws 429 beyond. */
export function limitAdmin(app: AppContext, limiter: RateLimiter, identity: string, headers: Record<string, unknown>): void {
  const decision = limiter.hit(identity, app.config.adminRateLimit);
  headers["x-ratelimit-limit"] = String(decision.limit);
  headers["x-ratelimit-remaining"] = String(decision.remaining);
  headers["x-ratelimit-retry-after"] = String(decision.retryAfterS);
  if (!decision.allowed) throw tooManyRequests(decision.retryAfterS);
}

/**
 * Authenticates an admin request and counts it. Failed attempts share one budget of the same size,
 * so guessing the admin key (or a session) is no faster than the admin API allows: beyond it, 429.
 */
export function admitAdmin(app: AppContext, limiter: RateLimiter, request: Request, headers: Record<string, unknown>): AdminCaller {
  let caller: AdminCaller;
  try {
    caller = authenticateAdmin(app, request);
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) limitAdmin(app, limiter, "failed-authentication", headers);
    throw err;
  }
  limitAdmin(app, limiter, caller.identity, headers);
  return caller;
}

/**
 * Checks the admin key or a dashboard session, and the per-second rate limit, on every admin route.
 * It runs at `transform`, before query and body validation: a caller without credentials learns
 * nothing about a route's parameters.
 */
export function requireAdmin(app: AppContext, limiter: RateLimiter) {
  return new Elysia().onTransform({ as: "scoped" }, ({ request, set }) => {
    admitAdmin(app, limiter, request, set.headers);
  });
}

export type AdminGuard = ReturnType<typeof requireAdmin>;
