import { and, eq, isNull, sql } from "drizzle-orm";
import type { ScopeCtx } from "../context";
import { foldText as fold } from "../db/fold";
import { videos } from "../db/schema";
import { paginate, type Page } from "../http/pagination";

/** GET /tags: every tag of this scope's videos with its video count; `value` is a partial, accent- and case-blind match. */
export function listTags(ctx: ScopeCtx, input: { url: string; page: Page; value?: string; sortBy: "value" | "videoCount"; sortOrder: "asc" | "desc" }) {
  // Grouped in SQL; filtered and sorted here because SQLite's lower() does not fold accents.
  const counts = ctx.db
    .select({ value: sql<string>`j.value`, videoCount: sql<number>`count(*)` })
    .from(sql`${videos}, json_each(${videos.tags}) j`)
    .where(and(eq(videos.projectId, ctx.projectId), eq(videos.environment, ctx.environment), isNull(videos.discardedAt)))
    .groupBy(sql`j.value`).all();
  const needle = input.value ? fold(input.value) : "";
  const sign = input.sortOrder === "desc" ? -1 : 1;
  const matching = counts
    .filter((t) => fold(t.value).includes(needle))
    .sort((a, b) => sign * (input.sortBy === "videoCount" ? a.videoCount - b.videoCount || a.value.localeCompare(b.value) : a.value.localeCompare(b.value)));
  const start = (input.page.page - 1) * input.page.pageSize;
  return paginate(input.url, input.page, matching.length, matching.slice(start, start + input.page.pageSize));
}
