import { and, asc, count, desc, eq, gt, isNull, or } from "drizzle-orm";
import { projectRefusal } from "../auth/project-state";
import { atom } from "../clock";
import type { Environment } from "../config";
import type { AppContext, ScopeCtx } from "../context";
import { uploadTokens } from "../db/schema";
import { notFound, unauthorized } from "../http/errors";
import { offsetOf, paginate, type Page } from "../http/pagination";
import { newId } from "../ids";

type TokenRow = typeof uploadTokens.$inferSelect;

function tokenBody(row: TokenRow) {
  const body: { token: string; ttl: number; createdAt: string; expiresAt?: string } = { token: row.id, ttl: row.ttl, createdAt: row.createdAt };
  if (row.expiresAtMs !== null) body.expiresAt = atom(new Date(row.expiresAtMs));
  return body;
}

const live = (app: AppContext) => or(isNull(uploadTokens.expiresAtMs), gt(uploadTokens.expiresAtMs, app.clock.now().getTime()));
const inScope = (ctx: ScopeCtx) => and(eq(uploadTokens.projectId, ctx.projectId), eq(uploadTokens.environment, ctx.environment));

/** POST /upload-tokens: a token that lets anyone holding it upload videos; ttl 0 never expires. */
export function createUploadToken(ctx: ScopeCtx, input: { ttl?: number }) {
  const ttl = input.ttl ?? 0;
  // Whole seconds, as createdAt and expiresAt are shown: the token expires exactly at the time it says.
  const now = new Date(Math.floor(ctx.clock.now().getTime() / 1000) * 1000);
  const row: TokenRow = {
    id: newId("to"), projectId: ctx.projectId, environment: ctx.environment, ttl, createdAt: atom(now),
    expiresAtMs: ttl === 0 ? null : now.getTime() + ttl * 1000,
  };
  ctx.db.insert(uploadTokens).values(row).run();
  return tokenBody(row);
}

/** GET /upload-tokens: the active tokens. */
export function listUploadTokens(ctx: ScopeCtx, input: { url: string; page: Page; sortBy: "createdAt" | "ttl"; sortOrder: "asc" | "desc" }) {
  const where = and(inScope(ctx), live(ctx));
  const total = ctx.db.select({ n: count() }).from(uploadTokens).where(where).get()!.n;
  const order = input.sortOrder === "desc" ? desc : asc;
  const rows = ctx.db.select().from(uploadTokens).where(where)
    .orderBy(order(input.sortBy === "ttl" ? uploadTokens.ttl : uploadTokens.createdAt), order(uploadTokens.id))
    .limit(input.page.pageSize).offset(offsetOf(input.page)).all();
  return paginate(input.url, input.page, total, rows.map(tokenBody));
}

function findToken(ctx: ScopeCtx, token: string): TokenRow {
  const row = ctx.db.select().from(uploadTokens).where(and(inScope(ctx), live(ctx), eq(uploadTokens.id, token))).get();
  if (!row) throw notFound("uploadToken");
  return row;
}

/** GET /upload-tokens/{token}. */
export function getUploadToken(ctx: ScopeCtx, token: string) {
  return tokenBody(findToken(ctx, token));
}

/** DELETE /upload-tokens/{token}: uploads with it stop at once. */
export function deleteUploadToken(ctx: ScopeCtx, token: string): void {
  findToken(ctx, token);
  ctx.db.delete(uploadTokens).where(eq(uploadTokens.id, token)).run();
}

/**
 * The scope an upload token grants on this listener, or 401. A token of a deleted project, or a
 * production token while the project's production is off, gets the very answer of an unknown one
 * (the rule API keys follow, auth/project-state.ts), so the answer tells nothing about the project.
 */
export function scopeForUploadToken(app: AppContext, environment: Environment, token: string | undefined): ScopeCtx & { tokenId: string } {
  if (!token) throw unauthorized("authentication-missing-upload-token", "The upload token is missing.", "Pass ?token= with an upload token.");
  const row = app.db.select().from(uploadTokens).where(and(eq(uploadTokens.id, token), eq(uploadTokens.environment, environment), live(app))).get();
  if (!row || projectRefusal(app, row.projectId, environment)) throw unauthorized("authentication-invalid-upload-token", "The upload token is invalid or expired.");
  return { ...app, projectId: row.projectId, environment, apiKeyId: "", tokenId: row.id };
}
