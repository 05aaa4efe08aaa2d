// Dashboard sessions: the admin key is traded once for a random session secret carried by an
// HttpOnly, SameSite=Strict cookie. Only the secret's SHA-256 is stored, with its expiry and the
// hash of the admin key it was opened with (a new admin key ends every session).
import { eq, lt, sql } from "drizzle-orm";
import { atom } from "../clock";
import type { AppContext } from "../context";
import { preparedQuery } from "../db/prepared";
import { dashboardSessions } from "../db/schema";
import { adminKeyHash, isAdminKey } from "../http/admin-key";
import { invalidCredentials } from "../http/errors";
import { newSecret } from "../ids";
import { constantTimeEqual, sha256Hex } from "../security";

export const SESSION_COOKIE = "vidhost_session";
const sessionQuery = preparedQuery((db) =>
  db.select().from(dashboardSessions).where(eq(dashboardSessions.hash, sql.placeholder("hash"))).prepare());

export interface OpenedSession {
  secret: string;
  expiresAt: number;
}

/** Opens a session for the admin key (400 when it is wrong, like /auth/api-key); also sweeps expired ones. */
export function openSession(app: AppContext, adminKey: string): OpenedSession {
  if (!isAdminKey(app, adminKey)) throw invalidCredentials("The admin key is wrong.");
  const now = app.clock.now();
  const secret = newSecret(43);
  const expiresAt = now.getTime() + app.config.sessionTtlHours * 3600_000;
  app.db.transaction((tx) => {
    tx.delete(dashboardSessions).where(lt(dashboardSessions.expiresAt, now.getTime())).run();
    tx.insert(dashboardSessions).values({ hash: sha256Hex(secret), adminKeyHash: adminKeyHash(app)!, createdAt: atom(now), expiresAt }).run();
  });
  return { secret, expiresAt };
}

/** The live session a cookie value stands for (its hash, used as the rate-limit identity), or null. */
export function sessionFor(app: AppContext, secret: string): { hash: string; expiresAt: number } | null {
  const hash = sha256Hex(secret);
  const row = sessionQuery(app).get({ hash });
  if (!row || !constantTimeEqual(row.hash, hash)) return null;
  if (row.expiresAt <= app.clock.now().getTime() || row.adminKeyHash !== adminKeyHash(app)) return null;
  return { hash, expiresAt: row.expiresAt };
}

/** Ends a session (sign-out); unknown secrets are ignored. */
export function closeSession(app: AppContext, secret: string): void {
  app.db.delete(dashboardSessions).where(eq(dashboardSessions.hash, sha256Hex(secret))).run();
}

/** The session secret from a Cookie header, or null. */
export function sessionSecret(cookieHeader: string | null): string | null {
  for (const part of cookieHeader?.split(";") ?? []) {
    const [name, ...value] = part.trim().split("=");
    if (name === SESSION_COOKIE) return value.join("=") || null;
  }
  return null;
}

/** The Set-Cookie value for a new session, or (expiresAt 0) one that clears it. Secure when served over https. */
export function sessionCookie(app: AppContext, secret: string, expiresAt: number): string {
  const maxAge = Math.max(0, Math.floor((expiresAt - app.clock.now().getTime()) / 1000));
  const secure = app.urls.admin.startsWith("https:") ? "; Secure" : "";
  return `${SESSION_COOKIE}=${secret}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAge}${secure}`;
}
