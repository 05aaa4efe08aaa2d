// Admin API lists: `{items, pagination:{page, page_size, item_count}, links:[{rel, href}]}` with no
// grand total (a `/count` route gives it). `previous` only past page 1, `next` only when more exist.
import { sql, type SQLWrapper } from "drizzle-orm";
import { t } from "elysia";
import { errorBody } from "./schemas";
import { invalidAttributes, invalidProblem, type Problem } from "./errors";

export interface AdminPage {
  page: number;
  pageSize: number;
}

/** Query fields of every admin list; strings, so a bad value is reported by name. */
export const adminPageQuery = {
  page: t.Optional(t.String()),
  page_size: t.Optional(t.String()),
  sort_order: t.Optional(t.String()),
};

/** Collects the problems of a list query before throwing them all at once. */
export class QueryCheck {
  readonly problems: Problem[] = [];

  /** An integer in min..max, or the fallback when absent. */
  integer(name: string, raw: string | undefined, fallback: number, min: number, max: number): number {
    if (raw === undefined || raw === "") return fallback;
    if (!/^\d{1,9}$/.test(raw) || Number(raw) < min || Number(raw) > max) {
      this.problems.push(invalidProblem(name, max >= 1e9 ? `This attribute must be an integer of at least ${min}.` : `This attribute must be an integer from ${min} to ${max}.`));
      return fallback;
    }
    return Number(raw);
  }

  /** One of `values`, or the fallback when absent. */
  oneOf<T extends string>(name: string, raw: string | undefined, values: readonly T[], fallback: T): T {
    if (raw === undefined || raw === "") return fallback;
    if (!(values as readonly string[]).includes(raw)) {
      this.problems.push(invalidProblem(name, `This attribute must be one of: ${values.join(", ")}.`));
      return fallback;
    }
    return raw as T;
  }

  /** Throws a 400 listing every problem found, if any. */
  done(): void {
    if (this.problems.length) throw invalidAttributes(this.problems);
  }
}

/** `page` (≥ 1, default 1) and `page_size` (1..100, default 20). */
export function adminPage(check: QueryCheck, query: { page?: string; page_size?: string }): AdminPage {
  return {
    page: check.integer("page", query.page, 1, 1, 1e9),
    pageSize: check.integer("page_size", query.page_size, 20, 1, 100),
  };
}

/** `sort_order`: asc (default) or desc. */
export const sortOrder = (check: QueryCheck, raw: string | undefined) => check.oneOf("sort_order", raw, ["asc", "desc"] as const, "asc");

/** SQL offset and limit for a page: one extra row tells whether a next page exists. */
export const pageWindow = (p: AdminPage) => ({ offset: (p.page - 1) * p.pageSize, limit: p.pageSize + 1 });

/**
 * The admin list envelope from up to pageSize + 1 rows (see pageWindow). Link hrefs are the request's
 * path and query, filters kept, with `page` and `page_size` set.
 */
export function adminList<T>(url: string, page: AdminPage, rows: T[]) {
  const items = rows.slice(0, page.pageSize);
  const parsed = new URL(url, "http://localhost");
  const href = (n: number) => {
    const params = new URLSearchParams(parsed.search);
    params.set("page", String(n));
    params.set("page_size", String(page.pageSize));
    return `${parsed.pathname}?${params.toString()}`;
  };
  const links: { rel: "previous" | "self" | "next"; href: string }[] = [];
  if (page.page > 1) links.push({ rel: "previous", href: href(page.page - 1) });
  links.push({ rel: "self", href: href(page.page) });
  if (rows.length > page.pageSize) links.push({ rel: "next", href: href(page.page + 1) });
  return { items, pagination: { page: page.page, page_size: page.pageSize, item_count: items.length }, links };
}

/** Response schema of an admin list of `item`. */
export const adminListSchema = <T extends Parameters<typeof t.Array>[0]>(item: T) =>
  t.Object({
    items: t.Array(item),
    pagination: t.Object({ page: t.Integer(), page_size: t.Integer(), item_count: t.Integer() }),
    links: t.Array(t.Object({ rel: t.String(), href: t.String() })),
  });

/** The admin 400 body (api.video admin adds `total_problems` and `constraint`); other errors omit them. */
export const adminErrorBody = t.Object({
  ...errorBody.properties,
  total_problems: t.Optional(t.Integer()),
  constraint: t.Optional(t.String()),
});

export const adminErrors = { 400: adminErrorBody, 401: adminErrorBody, 403: adminErrorBody, 404: adminErrorBody, 429: adminErrorBody };

/** Case-insensitive "contains" filter, as the main API's lists do it. */
export const contains = (column: SQLWrapper, text: string) => sql`instr(lower(${column}), lower(${text})) > 0`;
