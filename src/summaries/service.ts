import { and, asc, count, desc, eq, sql, type SQL } from "drizzle-orm";
import { atom } from "../clock";
import type { ScopeCtx } from "../context";
import { summaries } from "../db/schema";
import { notFound } from "../http/errors";
import { offsetOf, paginate, type Page } from "../http/pagination";
import { findVideo } from "../videos/service";
import { SUMMARY_ATTRIBUTES, type SummaryAttribute, type SummarySource } from "./engine";
import { cancelGeneration, startSummary, summaryBody, summaryConflict, type SourceStatus, type SummaryRow } from "./state";

function findSummary(ctx: ScopeCtx, summaryId: string): SummaryRow {
  const row = ctx.db.select().from(summaries)
    .where(and(eq(summaries.id, summaryId), eq(summaries.projectId, ctx.projectId), eq(summaries.environment, ctx.environment))).get();
  if (!row) throw notFound("summaryId");
  return row;
}

/** The source as api.video shows it: only the parts that exist. */
export function sourceBody(row: SummaryRow): SummarySource {
  const out: SummarySource = {};
  if (row.abstract !== null) out.abstract = row.abstract;
  if (row.takeaways !== null) out.takeaways = JSON.parse(row.takeaways) as string[];
  return out;
}

/** POST /summaries: a summary for a video; `origin: "auto"` generates it, none leaves it `missing` for PATCH. 409 while one is waiting or completed. */
export function createSummary(ctx: ScopeCtx, input: { videoId: string; origin?: "auto"; attributes?: SummaryAttribute[] }) {
  findVideo(ctx, input.videoId);
  const attributes = input.attributes?.length ? SUMMARY_ATTRIBUTES.filter((a) => input.attributes!.includes(a)) : SUMMARY_ATTRIBUTES;
  const row = startSummary(ctx, ctx, input.videoId, { origin: input.origin ?? "api", attributes, conflictName: "videoId" });
  return summaryBody(row);
}

export interface SummaryFilters {
  videoId?: string;
  origin?: "auto" | "api";
  sourceStatus?: SourceStatus;
  sortBy?: "createdAt" | "updatedAt" | "videoId";
  sortOrder?: "asc" | "desc";
}

const SORT = { createdAt: summaries.createdAt, updatedAt: summaries.updatedAt, videoId: summaries.videoId };

/** GET /summaries: filtered by video, origin and status, sorted, paginated. */
export function listSummaries(ctx: ScopeCtx, input: { url: string; page: Page; filters: SummaryFilters }) {
  const f = input.filters;
  const where: SQL[] = [eq(summaries.projectId, ctx.projectId), eq(summaries.environment, ctx.environment)];
  if (f.videoId) where.push(eq(summaries.videoId, f.videoId));
  if (f.origin) where.push(eq(summaries.origin, f.origin));
  if (f.sourceStatus) where.push(eq(summaries.sourceStatus, f.sourceStatus));
  const total = ctx.db.select({ n: count() }).from(summaries).where(and(...where)).get()!.n;
  const order = f.sortOrder === "desc" ? desc : asc;
  const rows = ctx.db.select().from(summaries).where(and(...where))
    .orderBy(order(SORT[f.sortBy ?? "createdAt"]), order(sql`${summaries}.rowid`))
    .limit(input.page.pageSize).offset(offsetOf(input.page)).all();
  return paginate(input.url, input.page, total, rows.map(summaryBody));
}

/** GET /summaries/{id}/source: the abstract and takeaways written so far (empty until there is a source). */
export function getSummarySource(ctx: ScopeCtx, summaryId: string) {
  return sourceBody(findSummary(ctx, summaryId));
}

/** PATCH /summaries/{id}/source: sets the given parts by hand; the summary becomes `completed`. 409 while `waiting`. */
export function updateSummarySource(ctx: ScopeCtx, summaryId: string, input: SummarySource) {
  const row = findSummary(ctx, summaryId);
  if (row.sourceStatus === "waiting") {
    throw summaryConflict("summaryId", "This summary is being generated: change its source once generation ends, or delete it.");
  }
  const changes: Partial<SummaryRow> = {};
  if (input.abstract !== undefined) changes.abstract = input.abstract;
  if (input.takeaways !== undefined) changes.takeaways = JSON.stringify(input.takeaways);
  if (Object.keys(changes).length) {
    ctx.db.update(summaries).set({ ...changes, sourceStatus: "completed", reason: null, updatedAt: atom(ctx.clock.now()) })
      .where(and(eq(summaries.id, summaryId), eq(summaries.sourceStatus, row.sourceStatus))).run();
  }
  return sourceBody(findSummary(ctx, summaryId));
}

/** DELETE /summaries/{id}: removes the summary (stopping its generation); the video may get a new one. */
export function deleteSummary(ctx: ScopeCtx, summaryId: string): void {
  const row = findSummary(ctx, summaryId);
  cancelGeneration(ctx, row.id);
  ctx.db.delete(summaries).where(eq(summaries.id, row.id)).run();
}

/** DELETE /summaries/{id}/source: drops the abstract and takeaways (stopping a generation); the summary is `missing` and a new generation may start. */
export function deleteSummarySource(ctx: ScopeCtx, summaryId: string): void {
  const row = findSummary(ctx, summaryId);
  cancelGeneration(ctx, row.id);
  ctx.db.update(summaries).set({ abstract: null, takeaways: null, reason: null, sourceStatus: "missing", updatedAt: atom(ctx.clock.now()) })
    .where(eq(summaries.id, row.id)).run();
}
