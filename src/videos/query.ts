import { invalidAttributes, invalidProblem, type Problem } from "../http/errors";
import { parsePage, type Page } from "../http/pagination";

export interface VideoFilters {
  title?: string;
  description?: string;
  liveStreamId?: string;
  tags: string[];
  metadata: [key: string, value: string][];
  /** Free text of /videos/search: every word must appear in the title, description or tags. */
  search?: string;
  sortBy: "title" | "createdAt" | "publishedAt" | "updatedAt";
  sortOrder: "asc" | "desc";
}

const SORT_BY = ["title", "createdAt", "publishedAt", "updatedAt"] as const;
const SCALARS = ["title", "description", "liveStreamId", "sortBy", "sortOrder", "currentPage", "pageSize"];

/**
 * Reads /videos filters from the raw query string: Elysia keeps only the last of repeated keys,
 * and api.video's clients send `tags[]=a&tags[]=b` and `metadata[key]=value`.
 */
export function parseVideoQuery(url: string, options: { search: boolean }): { filters: VideoFilters; page: Page } {
  const params = new URL(url, "http://localhost").searchParams;
  const problems: Problem[] = [];
  const scalars: Record<string, string> = {};
  const filters: VideoFilters = { tags: [], metadata: [], sortBy: "createdAt", sortOrder: "asc" };
  for (const [key, value] of params) {
    const meta = /^metadata\[(.+)\]$/.exec(key);
    if (key === "tags" || key === "tags[]" || /^tags\[\d+\]$/.test(key)) filters.tags.push(value);
    else if (meta) filters.metadata.push([meta[1], value]);
    else if (SCALARS.includes(key) || (options.search && key === "q")) scalars[key] = value;
    else problems.push(invalidProblem(key, "This attribute is not allowed."));
  }
  if (scalars.sortBy !== undefined) {
    if ((SORT_BY as readonly string[]).includes(scalars.sortBy)) filters.sortBy = scalars.sortBy as VideoFilters["sortBy"];
    else problems.push(invalidProblem("sortBy", `This attribute must be one of: ${SORT_BY.join(", ")}.`));
  }
  if (scalars.sortOrder !== undefined) {
    const order = scalars.sortOrder.toLowerCase();
    if (order === "asc" || order === "desc") filters.sortOrder = order;
    else problems.push(invalidProblem("sortOrder", "This attribute must be one of: asc, desc."));
  }
  if (problems.length) throw invalidAttributes(problems);
  if (scalars.title) filters.title = scalars.title;
  if (scalars.description) filters.description = scalars.description;
  if (scalars.liveStreamId) filters.liveStreamId = scalars.liveStreamId;
  if (scalars.q?.trim()) filters.search = scalars.q.trim();
  return { filters, page: parsePage(scalars) };
}
