import { and, asc, count, desc, eq, sql, type SQL } from "drizzle-orm";
import type { AppContext } from "../context";
import { projects } from "../db/schema";
import { adminList, adminPage, contains, pageWindow, QueryCheck, sortOrder } from "../http/admin-list";
import { projectBody } from "./service";

export interface ProjectListQuery {
  name?: string;
  sort_by?: string;
  sort_order?: string;
  page?: string;
  page_size?: string;
}

const SORT_BY = ["created_at", "name"] as const;
const SORT_COLUMNS = { created_at: projects.createdAt, name: projects.name };

/** Live projects whose name contains `name` (case-insensitive). */
function where(name: string | undefined): SQL | undefined {
  const conditions: SQL[] = [eq(projects.deleted, false)];
  if (name) conditions.push(contains(projects.name, name));
  return and(...conditions);
}

/** GET /projects/count: how many live projects match the name filter. */
export function countProjects(app: AppContext, query: { name?: string }) {
  return { count: app.db.select({ n: count() }).from(projects).where(where(query.name)).get()!.n };
}

/** GET /projects: filtered by name, sorted by created_at (default) or name, paginated without a total. */
export function listProjects(app: AppContext, url: string, query: ProjectListQuery) {
  const check = new QueryCheck();
  const page = adminPage(check, query);
  const sortBy = check.oneOf("sort_by", query.sort_by, SORT_BY, "created_at");
  const order = sortOrder(check, query.sort_order) === "desc" ? desc : asc;
  check.done();
  const { offset, limit } = pageWindow(page);
  // rowid breaks ties (same second, same name) so pages never overlap.
  const rows = app.db.select().from(projects).where(where(query.name))
    .orderBy(order(SORT_COLUMNS[sortBy]), order(sql`${projects}.rowid`)).limit(limit).offset(offset).all();
  return adminList(url, page, rows.map(projectBody));
}
