import { eq, sql } from "drizzle-orm";
import type { AppContext } from "../context";
import { preparedQuery } from "../db/prepared";
import { settings } from "../db/schema";
import { constantTimeEqual, sha256Hex } from "../security";

/** The settings row holding the admin key's SHA-256 (the key itself is never stored). */
export const ADMIN_KEY_SETTING = "admin_key_hash";

const settingQuery = preparedQuery((db) =>
  db.select({ value: settings.value }).from(settings).where(eq(settings.key, sql.placeholder("key"))).prepare());

/** The stored hash of the admin key (set by bootstrap before any listener starts). */
export function adminKeyHash(app: AppContext): string | undefined {
  return settingQuery(app).get({ key: ADMIN_KEY_SETTING })?.value;
}

/** Whether `secret` is the admin key, compared in constant time. */
export function isAdminKey(app: AppContext, secret: string): boolean {
  const stored = adminKeyHash(app);
  return !!stored && constantTimeEqual(sha256Hex(secret), stored);
}
