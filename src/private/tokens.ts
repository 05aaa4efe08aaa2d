// Private media (`public: false`): single-use tokens minted into every answer's asset URLs, and the
// `avh` sessions a spent token opens so a player can fetch the rest. Both are stored as SHA-256
// hashes (a database leak hands out no working URL) and looked up by hash, never compared raw.
import { randomUUID } from "node:crypto";
import { and, eq, gt, isNotNull, isNull, lt, or } from "drizzle-orm";
import type { AppContext } from "../context";
import { privateSessions, privateTokens } from "../db/schema";
import { sha256Hex } from "../security";

/** api.video's session lifetime: a player opened from one token keeps working for a day. */
export const SESSION_TTL_MS = 24 * 3600 * 1000;

type Ctx = Pick<AppContext, "db" | "clock" | "config">;

const tokenTtlMs = (app: Ctx) => app.config.privateTokenTtlHours * 3600 * 1000;

/** Mints a new single-use token (a UUID, like api.video's) for one video or live stream. */
export function mintToken(app: Ctx, mediaId: string): string {
  const token = randomUUID();
  app.db.insert(privateTokens).values({ tokenHash: sha256Hex(token), mediaId, createdAt: app.clock.now().getTime() }).run();
  return token;
}

const unspent = (app: Ctx, mediaId: string, token: string) => and(
  eq(privateTokens.tokenHash, sha256Hex(token)),
  eq(privateTokens.mediaId, mediaId),
  isNull(privateTokens.usedAt),
  gt(privateTokens.createdAt, app.clock.now().getTime() - tokenTtlMs(app)),
);

/** Whether the token is one of this media's, unspent and unexpired (HEAD requests look, never spend). */
export function tokenValid(app: Ctx, mediaId: string, token: string): boolean {
  return !!app.db.select({ h: privateTokens.tokenHash }).from(privateTokens).where(unspent(app, mediaId, token)).get();
}

/** Spends the token; false when it was not valid or a concurrent request spent it first. */
export function spendToken(app: Ctx, mediaId: string, token: string): boolean {
  return app.db.update(privateTokens).set({ usedAt: app.clock.now().getTime() }).where(unspent(app, mediaId, token)).run().changes === 1;
}

/** Opens an `avh` session on the media for SESSION_TTL_MS; returns its value (shown once). */
export function openSession(app: Ctx, mediaId: string): string {
  const session = randomUUID();
  app.db.insert(privateSessions).values({ sessionHash: sha256Hex(session), mediaId, expiresAt: app.clock.now().getTime() + SESSION_TTL_MS }).run();
  return session;
}

/** Whether `avh` is a live session of this media. */
export function sessionValid(app: Ctx, mediaId: string, session: string): boolean {
  return !!app.db.select({ h: privateSessions.sessionHash }).from(privateSessions)
    .where(and(eq(privateSessions.sessionHash, sha256Hex(session)), eq(privateSessions.mediaId, mediaId), gt(privateSessions.expiresAt, app.clock.now().getTime())))
    .get();
}

/** Deletes spent and expired tokens and expired sessions (every read mints tokens: this bounds the tables). */
export function prunePrivateAccess(app: Ctx): { tokens: number; sessions: number } {
  const now = app.clock.now().getTime();
  const tokens = app.db.delete(privateTokens).where(or(isNotNull(privateTokens.usedAt), lt(privateTokens.createdAt, now - tokenTtlMs(app)))).run().changes;
  const sessions = app.db.delete(privateSessions).where(lt(privateSessions.expiresAt, now)).run().changes;
  return { tokens, sessions };
}
