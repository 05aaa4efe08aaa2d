import { and, eq, gt, lt, sql } from "drizzle-orm";
import type { Environment } from "../config";
import type { AppContext, ScopeCtx } from "../context";
import { preparedQuery } from "../db/prepared";
import { apiKeys, authTokens } from "../db/schema";
import { invalidCredentials, unauthorized } from "../http/errors";
import { newSecret } from "../ids";
import { constantTimeEqual, sha256Hex } from "../security";
import type { CachedKey, CachedToken } from "./key-cache";
import { projectRefusal } from "./project-state";

export const ACCESS_TOKEN_TTL_S = 3600;
/** Refresh tokens outlive access tokens so a client can renew without its API key. */
const REFRESH_TOKEN_TTL_S = 30 * 24 * 3600;

export interface TokenPair {
  token_type: "Bearer";
  expires_in: number;
  access_token: string;
  refresh_token: string;
}

type KeyRow = typeof apiKeys.$inferSelect;

// Hot queries, prepared once per database (see db/prepared.ts).
const keyByHashQuery = preparedQuery((db) =>
  db.select().from(apiKeys).where(eq(apiKeys.secretHash, sql.placeholder("hash"))).prepare());
const keyByIdQuery = preparedQuery((db) =>
  db.select().from(apiKeys).where(eq(apiKeys.id, sql.placeholder("id"))).prepare());
const liveTokenQuery = preparedQuery((db) =>
  db.select().from(authTokens)
    .where(and(eq(authTokens.hash, sql.placeholder("hash")), eq(authTokens.kind, sql.placeholder("kind")), gt(authTokens.expiresAt, sql.placeholder("now"))))
    .prepare());

const cachedKey = (row: KeyRow): CachedKey => ({ id: row.id, projectId: row.projectId, environment: row.environment });

/** The live key whose secret hashes to `secret`, or undefined. */
function keyBySecret(app: AppContext, secret: string): CachedKey | undefined {
  const hash = sha256Hex(secret);
  return app.keyCache.key(hash, () => {
    const row = keyByHashQuery(app).get({ hash });
    // The index lookup finds the row; the explicit constant-time compare keeps the check itself timing-safe.
    return row && constantTimeEqual(row.secretHash, hash) ? cachedKey(row) : undefined;
  });
}

/** Why a key may not be used on this listener, or null when it may. */
function refusal(app: AppContext, key: CachedKey, environment: Environment): string | null {
  if (key.environment !== environment) {
    return `This is a ${key.environment} API key; use it on the ${key.environment} API.`;
  }
  const why = projectRefusal(app, key.projectId, environment);
  if (why === "deleted") return "This API key's project no longer exists.";
  if (why === "production-disabled") {
    return "This project is sandbox-only: enable production for it in the dashboard or the admin API before using production keys.";
  }
  return null;
}

function mintPair(app: AppContext, apiKeyId: string): TokenPair {
  const now = app.clock.now().getTime();
  const access = newSecret(48);
  const refresh = newSecret(48);
  const pairId = newSecret(16);
  app.db.transaction((tx) => {
    tx.delete(authTokens).where(lt(authTokens.expiresAt, now)).run();
    tx.insert(authTokens).values([
      { hash: sha256Hex(access), kind: "access", apiKeyId, pairId, expiresAt: now + ACCESS_TOKEN_TTL_S * 1000 },
      { hash: sha256Hex(refresh), kind: "refresh", apiKeyId, pairId, expiresAt: now + REFRESH_TOKEN_TTL_S * 1000 },
    ]).run();
  });
  return { token_type: "Bearer", expires_in: ACCESS_TOKEN_TTL_S, access_token: access, refresh_token: refresh };
}

function liveToken(app: AppContext, hash: string, kind: "access" | "refresh") {
  const row = liveTokenQuery(app).get({ hash, kind, now: app.clock.now().getTime() });
  return row && constantTimeEqual(row.hash, hash) ? row : undefined;
}

/** The live access token hashing to `hash`, with the key it stands for, or undefined. */
function accessToken(app: AppContext, token: string): CachedToken | undefined {
  const hash = sha256Hex(token);
  return app.keyCache.accessToken(hash, app.clock.now().getTime(), () => {
    const row = liveToken(app, hash, "access");
    const key = row && keyByIdQuery(app).get({ id: row.apiKeyId });
    return key && { key: cachedKey(key), pairId: row.pairId, expiresAt: row.expiresAt };
  });
}

/** POST /auth/api-key: trades an API key of this environment for an access and a refresh token. */
export function exchangeApiKey(app: AppContext, environment: Environment, apiKey: string): TokenPair {
  const key = keyBySecret(app, apiKey);
  const why = key ? refusal(app, key, environment) : "The API key is unknown.";
  if (!key || why) throw invalidCredentials(why ?? "");
  return mintPair(app, key.id);
}

/** POST /auth/refresh: rotates both tokens; the old pair stops working at once. */
export function refreshTokens(app: AppContext, environment: Environment, refreshToken: string): TokenPair {
  const row = liveToken(app, sha256Hex(refreshToken), "refresh");
  const keyRow = row && keyByIdQuery(app).get({ id: row.apiKeyId });
  const key = keyRow && cachedKey(keyRow);
  const why = key ? refusal(app, key, environment) : "The refresh token is unknown or expired.";
  if (!row || !key || why) throw invalidCredentials(why ?? "");
  app.db.delete(authTokens).where(eq(authTokens.pairId, row.pairId)).run();
  app.keyCache.invalidateTokenPair(row.pairId);
  return mintPair(app, key.id);
}

/** Parses an Authorization header (Basic `key:`, `Bearer token` or a bare token) into what it stands for, or throws 401. */
function parseCredential(app: AppContext, value: string): CachedToken {
  const space = value.search(/\s/);
  const scheme = space < 0 ? value : value.slice(0, space);
  const rest = space < 0 ? "" : value.slice(space).trim();
  if (scheme.toLowerCase() === "basic") {
    const decoded = Buffer.from(rest, "base64").toString("utf8");
    const colon = decoded.indexOf(":");
    if (colon < 0) throw unauthorized("authentication-invalid-authorization-header-value", "The Authorization header is malformed.", "Basic credentials must be \"<api key>:\" with the colon.");
    const key = keyBySecret(app, decoded.slice(0, colon));
    if (!key) throw unauthorized("authentication-invalid-api-key", "The API key is invalid.");
    return { key, pairId: "", expiresAt: Infinity };
  }
  const bare = rest === "";
  if (!bare && scheme.toLowerCase() !== "bearer") {
    throw unauthorized("authentication-invalid-authorization-header-value", "The Authorization header is malformed.", "Use Basic or Bearer.");
  }
  const token = accessToken(app, bare ? scheme : rest);
  if (!token) throw unauthorized("authentication-invalid-access-token", "The access token is invalid or expired.");
  return token;
}

/**
 * Authenticates a main-API request from its Authorization header into a request scope, or throws 401.
 * A header seen before costs one hash: the cache maps whole headers to what they stand for.
 */
export function authenticate(app: AppContext, environment: Environment, header: string | undefined): ScopeCtx {
  const value = header?.trim();
  if (!value) {
    throw unauthorized("authentication-missing-authorization-header", "The Authorization header is missing.", "Send Basic auth with your API key as the user name, or a bearer token from /auth/api-key.");
  }
  // parseCredential throws rather than return nothing, so a credential always comes back.
  const key = app.keyCache.credential(sha256Hex(value), app.clock.now().getTime(), () => parseCredential(app, value))!.key;
  const why = refusal(app, key, environment);
  if (why) throw unauthorized("authentication-invalid-api-key", "The API key is not valid here.", why);
  // Passing `refusal` means the key belongs to this environment, so its scope can be built once.
  return (key.scope ??= { ...app, projectId: key.projectId, environment, apiKeyId: key.id });
}
