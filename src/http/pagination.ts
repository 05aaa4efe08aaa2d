import { t } from "elysia";
import { ApiError, invalidAttributes, invalidProblem } from "./errors";

/** Query fields every main-API list accepts; kept as strings so a bad value is reported by name. */
export const pageQuery = {
  currentPage: t.Optional(t.String()),
  pageSize: t.Optional(t.String()),
};

export interface Page {
  page: number;
  pageSize: number;
}

function bounded(name: string, raw: string | undefined, fallback: number, min: number, max: number): number {
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < min || n > max) {
    const title = max === Number.MAX_SAFE_INTEGER ? `This attribute must be an integer of at least ${min}.` : `This attribute must be an integer from ${min} to ${max}.`;
    const problem = invalidProblem(name, title);
    throw new ApiError(400, problem.kind, "Invalid attributes.", { name, detail: title, problems: [problem], extra: { range: { min, max } } });
  }
  return n;
}

/** Validates currentPage (≥ 1, default 1) and pageSize (1..100, default 25). */
export function parsePage(query: { currentPage?: string; pageSize?: string }): Page {
  return {
    page: bounded("currentPage", query.currentPage, 1, 1, Number.MAX_SAFE_INTEGER),
    pageSize: bounded("pageSize", query.pageSize, 25, 1, 100),
  };
}

/** SQL offset for a page. */
export const offsetOf = (p: Page) => (p.page - 1) * p.pageSize;

/** The api.video list envelope; link URIs keep the caller's path and filters and set the page. */
export function paginate<T>(url: string, page: Page, itemsTotal: number, data: T[]) {
  const pagesTotal = Math.max(1, Math.ceil(itemsTotal / page.pageSize));
  const parsed = new URL(url, "http://localhost");
  const uri = (n: number) => {
    const params = new URLSearchParams(parsed.search);
    params.set("currentPage", String(n));
    params.set("pageSize", String(page.pageSize));
    return `${parsed.pathname}?${params.toString()}`;
  };
  const links: { rel: string; uri: string }[] = [{ rel: "self", uri: uri(page.page) }, { rel: "first", uri: uri(1) }];
  if (page.page > 1) links.push({ rel: "previous", uri: uri(Math.min(page.page - 1, pagesTotal)) });
  if (page.page < pagesTotal) links.push({ rel: "next", uri: uri(page.page + 1) });
  links.push({ rel: "last", uri: uri(pagesTotal) });
  return {
    data,
    pagination: { currentPage: page.page, pageSize: page.pageSize, pagesTotal, itemsTotal, currentPageItems: data.length, links },
  };
}

/** Response schema for the pagination object, shared by every list route. */
export const paginationSchema = t.Object({
  currentPage: t.Integer(),
  pageSize: t.Integer(),
  pagesTotal: t.Integer(),
  itemsTotal: t.Integer(),
  currentPageItems: t.Integer(),
  links: t.Array(t.Object({ rel: t.String(), uri: t.String() })),
});

/**
 * Checks `sortBy` (one of `columns`' names, default `fallback`) and `sortOrder` (asc | desc, any
 * case, default asc) together, so both problems come back in one 400.
 */
export function parseSort<K extends string>(query: { sortBy?: string; sortOrder?: string }, columns: readonly K[], fallback: K): { sortBy: K; desc: boolean } {
  const problems = [];
  if (query.sortBy !== undefined && !(columns as readonly string[]).includes(query.sortBy)) {
    problems.push(invalidProblem("sortBy", `This attribute must be one of: ${columns.join(", ")}.`));
  }
  const order = (query.sortOrder ?? "asc").toLowerCase();
  if (order !== "asc" && order !== "desc") problems.push(invalidProblem("sortOrder", "This attribute must be one of: asc, desc."));
  if (problems.length) throw invalidAttributes(problems);
  return { sortBy: (query.sortBy as K | undefined) ?? fallback, desc: order === "desc" };
}
