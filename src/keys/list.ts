import { and, asc, count, desc, eq, sql, type SQL } from "drizzle-orm";
import type { AppContext } from "../context";
import { apiKeys } from "../db/schema";
import { adminList, adminPage, contains, pageWindow, QueryCheck, sortOrder } from "../http/admin-list";
import { getProjectRow } from "../projects/service";
import { sha256Hex } from "../security";
import { apiKeyBody } from "./service";

/** How many leading characters of a secret its masked value shows (security.ts maskSecret). */
const VISIBLE = 4;

export interface KeyFilters {
  name?: string;
  value?: string;
  environment?: string;
}

export interface KeyListQuery extends KeyFilters {
  sort_by?: string;
  sort_order?: string;
  page?: string;
  page_size?: string;
}

const ENVIRONMENTS = ["sandbox", "production"] as const;
const SORT_BY = ["created_at", "name", "value"] as const;
const SORT_COLUMNS = { created_at: apiKeys.createdAt, name: apiKeys.name, value: apiKeys.masked };

/**
 * `value` matches what a person can know of a key: its masked form or a prefix of what it shows
 * (`abcd`, `ab`, `abcd****…`), or the full secret (matched by hash). Text longer than the visible
 * prefix must be the whole key: nothing else of the secret is stored.
 */
function valueCondition(value: string): SQL {
  const shown = value.replace(/\*+$/, "");
  if (shown.length <= VISIBLE) return sql`substr(${apiKeys.masked}, 1, ${shown.length}) = ${shown}`;
  return eq(apiKeys.secretHash, sha256Hex(value));
}

function where(check: QueryCheck, projectId: string, f: KeyFilters): SQL | undefined {
  const conditions: SQL[] = [eq(apiKeys.projectId, projectId)];
  if (f.name) conditions.push(contains(apiKeys.name, f.name));
  if (f.value) conditions.push(valueCondition(f.value));
  if (f.environment !== undefined) conditions.push(eq(apiKeys.environment, check.oneOf("environment", f.environment, ENVIRONMENTS, "production")));
  return and(...conditions);
}

/** GET /projects/{id}/api-keys/count: keys matching name, value and environment. */
export function countApiKeys(app: AppContext, projectId: string, query: KeyFilters) {
  getProjectRow(app, projectId);
  const check = new QueryCheck();
  const condition = where(check, projectId, query);
  check.done();
  return { count: app.db.select({ n: count() }).from(apiKeys).where(condition).get()!.n };
}

/** GET /projects/{id}/api-keys: filtered, sorted by created_at (default), name or value, paginated, values masked. */
export function listApiKeys(app: AppContext, projectId: string, url: string, query: KeyListQuery) {
  getProjectRow(app, projectId);
  const check = new QueryCheck();
  const condition = where(check, projectId, query);
  const page = adminPage(check, query);
  const sortBy = check.oneOf("sort_by", query.sort_by, SORT_BY, "created_at");
  const order = sortOrder(check, query.sort_order) === "desc" ? desc : asc;
  check.done();
  const { offset, limit } = pageWindow(page);
  const rows = app.db.select().from(apiKeys).where(condition)
    .orderBy(order(SORT_COLUMNS[sortBy]), order(sql`${apiKeys}.rowid`)).limit(limit).offset(offset).all();
  return adminList(url, page, rows.map((r) => apiKeyBody(r)));
}
