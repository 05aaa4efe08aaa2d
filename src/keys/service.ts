import { and, eq } from "drizzle-orm";
import { atom } from "../clock";
import type { Environment } from "../config";
import type { AppContext } from "../context";
import { apiKeys } from "../db/schema";
import { notFound } from "../http/errors";
import { newId, newSecret } from "../ids";
import { getProjectRow } from "../projects/service";
import { maskSecret, sha256Hex } from "../security";

export type KeyRow = typeof apiKeys.$inferSelect;

/** The admin API's key body; `value` is the full secret only in the creation answer. */
export function apiKeyBody(row: KeyRow, value = row.masked) {
  return {
    project_id: row.projectId,
    api_key_id: row.id,
    created_at: row.createdAt,
    name: row.name,
    value,
    environment: row.environment,
  };
}

/** Creates an API key for one environment of a project; the secret is returned once and stored hashed. */
export function createApiKey(app: AppContext, projectId: string, input: { name: string; environment?: Environment }) {
  getProjectRow(app, projectId);
  const secret = newSecret(43);
  const row: KeyRow = {
    id: newId("api_key_"),
    projectId,
    environment: input.environment ?? "production",
    name: input.name,
    secretHash: sha256Hex(secret),
    masked: maskSecret(secret),
    createdAt: atom(app.clock.now()),
  };
  app.db.insert(apiKeys).values(row).run();
  // The key cache holds only keys that exist, so a new key needs no invalidation.
  return apiKeyBody(row, secret);
}

/** The key row of this project, or 404 naming the id (the project is checked first). */
function findKey(app: AppContext, projectId: string, apiKeyId: string): KeyRow {
  getProjectRow(app, projectId);
  const row = app.db.select().from(apiKeys).where(and(eq(apiKeys.projectId, projectId), eq(apiKeys.id, apiKeyId))).get();
  if (!row) throw notFound("api_key_id");
  return row;
}

/** Reads one key (masked). */
export function getApiKey(app: AppContext, projectId: string, apiKeyId: string) {
  return apiKeyBody(findKey(app, projectId, apiKeyId));
}

/** Renames a key; its secret, environment and validity do not change. */
export function renameApiKey(app: AppContext, projectId: string, apiKeyId: string, input: { name: string }) {
  findKey(app, projectId, apiKeyId);
  app.db.update(apiKeys).set({ name: input.name }).where(eq(apiKeys.id, apiKeyId)).run();
  return getApiKey(app, projectId, apiKeyId);
}

/** Deletes (revokes) a key: its tokens go with it (cascade) and the cache forgets both, so it stops working at once. */
export function deleteApiKey(app: AppContext, projectId: string, apiKeyId: string): void {
  findKey(app, projectId, apiKeyId);
  app.db.delete(apiKeys).where(eq(apiKeys.id, apiKeyId)).run();
  app.keyCache.invalidateKey(apiKeyId);
}
