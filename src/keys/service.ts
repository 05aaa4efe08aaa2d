import { atom } from "../clock";
import type { Environment } from "../config";
import type { AppContext } from "../context";
import { apiKeys } from "../db/schema";
import { newId, newSecret } from "../ids";
import { getProjectRow } from "../projects/service";
import { maskSecret, sha256Hex } from "../security";

type KeyRow = typeof apiKeys.$inferSelect;

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
  // The key cache holds only keys that exist, so a new key needs no invalidation; a deleted or
  // changed key must call app.keyCache.invalidateKey(row.id).
  return apiKeyBody(row, secret);
}
