import { and, asc, count, desc, eq, isNotNull, isNull, sql, type SQL, type SQLWrapper } from "drizzle-orm";
import type { ScopeCtx } from "../context";
import { FOLD_SQL_FUNCTION, foldText } from "../db/fold";
import { videos } from "../db/schema";
import { offsetOf, paginate, type Page } from "../http/pagination";
import { videoBody } from "./body";
import type { VideoFilters } from "./query";

/** Case- and accent-blind: "ete" finds "Été" (SQLite's lower() folds ASCII only). */
const fold = (column: SQLWrapper) => sql`${sql.raw(FOLD_SQL_FUNCTION)}(${column})`;
const contains = (column: SQLWrapper, text: string) => sql`instr(${fold(column)}, ${foldText(text)}) > 0`;

function conditions(ctx: ScopeCtx, f: VideoFilters, discarded: boolean): SQL[] {
  const where: SQL[] = [eq(videos.projectId, ctx.projectId), eq(videos.environment, ctx.environment), discarded ? isNotNull(videos.discardedAt) : isNull(videos.discardedAt)];
  if (f.title) where.push(contains(videos.title, f.title));
  if (f.description) where.push(contains(videos.description, f.description));
  if (f.liveStreamId) where.push(eq(videos.liveStreamId, f.liveStreamId));
  for (const tag of f.tags) where.push(sql`EXISTS (SELECT 1 FROM json_each(${videos.tags}) WHERE value = ${tag})`);
  for (const [key, value] of f.metadata) {
    where.push(sql`EXISTS (SELECT 1 FROM json_each(${videos.metadata}) m WHERE json_extract(m.value, '$.key') = ${key} AND json_extract(m.value, '$.value') = ${value})`);
  }
  for (const word of f.search?.split(/\s+/) ?? []) {
    // Each tag on its own: matching the stored JSON text would let `[`, `"` or `,` match every video.
    const inTags = sql`EXISTS (SELECT 1 FROM json_each(${videos.tags}) t WHERE ${contains(sql`t.value`, word)})`;
    where.push(sql`(${contains(videos.title, word)} OR ${contains(videos.description, word)} OR ${inTags})`);
  }
  return where;
}

// Titles sort case- and accent-blind ("Álpine" among the a's), then exactly, so the order is total.
const SORT_COLUMNS: Record<VideoFilters["sortBy"], SQLWrapper[]> = {
  title: [fold(videos.title), videos.title],
  createdAt: [videos.createdAt],
  publishedAt: [videos.createdAt],
  updatedAt: [videos.updatedAt],
};

/** GET /videos, /videos/search and (with `discarded`) /discarded/videos: filtered, sorted, paginated. */
export function listVideos(ctx: ScopeCtx, input: { url: string; filters: VideoFilters; page: Page; discarded?: boolean }) {
  const where = and(...conditions(ctx, input.filters, input.discarded ?? false));
  const total = ctx.db.select({ n: count() }).from(videos).where(where).get()!.n;
  const order = input.filters.sortOrder === "desc" ? desc : asc;
  const rows = ctx.db.select().from(videos).where(where)
    .orderBy(...SORT_COLUMNS[input.filters.sortBy].map((c) => order(c)), order(sql`${videos}.rowid`))
    .limit(input.page.pageSize).offset(offsetOf(input.page)).all();
  return paginate(input.url, input.page, total, rows.map((r) => videoBody(ctx, r)));
}
