import { eq } from "drizzle-orm";
import { Elysia } from "elysia";
import type { AppContext } from "../context";
import { settings } from "../db/schema";
import { constantTimeEqual, sha256Hex } from "../security";
import { tooManyRequests, unauthorized } from "./errors";
import type { RateLimiter } from "./rate-limit";

export const ADMIN_KEY_SETTING = "admin_key_hash";

/** The admin key from a Basic header (`key:`), or null. */
function adminSecret(header: string | undefined): string | null {
  const m = /^basic\s+(.+)$/i.exec(header?.trim() ?? "");
  if (!m) return null;
  const decoded = Buffer.from(m[1], "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  return colon < 0 ? null : decoded.slice(0, colon);
}

/** Checks the admin key (Basic auth) and its per-second rate limit on every admin route. */
export function requireAdmin(app: AppContext, limiter: RateLimiter) {
  return new Elysia().onBeforeHandle({ as: "scoped" }, ({ headers, set }) => {
    const secret = adminSecret(headers.authorization);
    const stored = app.db.select().from(settings).where(eq(settings.key, ADMIN_KEY_SETTING)).get();
    if (!secret || !stored || !constantTimeEqual(sha256Hex(secret), stored.value)) {
      throw unauthorized("authentication-invalid-api-key", "The admin key is missing or invalid.", "Use Basic auth with the admin key as the user name and an empty password.");
    }
    const decision = limiter.hit(stored.value, app.config.adminRateLimit);
    set.headers["x-ratelimit-limit"] = String(decision.limit);
    set.headers["x-ratelimit-remaining"] = String(decision.remaining);
    set.headers["x-ratelimit-retry-after"] = String(decision.retryAfterS);
    if (!decision.allowed) throw tooManyRequests(decision.retryAfterS);
  });
}

export type AdminGuard = ReturnType<typeof requireAdmin>;
