import { and, asc, count, desc, eq, sql } from "drizzle-orm";
import { atom } from "../clock";
import type { Environment } from "../config";
import type { AppContext, ScopeCtx } from "../context";
import { playerThemes } from "../db/schema";
import { invalidAttributes, notFound } from "../http/errors";
import { offsetOf, paginate, parsePage, parseSort } from "../http/pagination";
import { newId } from "../ids";
import { logoUrl, playerBody, playerKey, type PlayerRow } from "./body";
import { DEFAULT_SETTINGS, inputProblems, pickSettings, readSettings, type PlayerInput, type ThemeSettings } from "./theme";

const inScope = (ctx: ScopeCtx) => and(eq(playerThemes.projectId, ctx.projectId), eq(playerThemes.environment, ctx.environment));

/** The player theme of this scope, or 404 naming `playerId` (another project's id looks unknown). */
export function findPlayer(ctx: ScopeCtx, playerId: string): PlayerRow {
  const row = ctx.db.select().from(playerThemes).where(and(inScope(ctx), eq(playerThemes.id, playerId))).get();
  if (!row) throw notFound("playerId");
  return row;
}

function checked(input: PlayerInput): Partial<ThemeSettings> {
  const problems = inputProblems(input);
  if (problems.length) throw invalidAttributes(problems);
  return pickSettings(input);
}

/** POST /players: a theme with api.video's defaults for every colour and flag not given. */
export function createPlayer(ctx: ScopeCtx, input: PlayerInput) {
  const settings = { ...DEFAULT_SETTINGS, ...checked(input) };
  const now = atom(ctx.clock.now());
  const row: PlayerRow = {
    id: newId("pl"), projectId: ctx.projectId, environment: ctx.environment, name: (input.name as string | undefined) ?? "",
    settings: JSON.stringify(settings), logoFormat: null, logoLink: null, createdAt: now, updatedAt: now,
  };
  ctx.db.insert(playerThemes).values(row).run();
  return playerBody(ctx, row);
}

/** GET /players/{playerId}. */
export function getPlayer(ctx: ScopeCtx, playerId: string) {
  return playerBody(ctx, findPlayer(ctx, playerId));
}

/** PATCH /players/{playerId}: changes the given fields only; pages pick the change up on their next load. */
export function updatePlayer(ctx: ScopeCtx, playerId: string, input: PlayerInput) {
  const row = findPlayer(ctx, playerId);
  const changes = checked(input);
  const settings = JSON.stringify({ ...readSettings(row.settings), ...changes });
  ctx.db.update(playerThemes)
    .set({ settings, ...(typeof input.name === "string" ? { name: input.name } : {}), updatedAt: atom(ctx.clock.now()) })
    .where(eq(playerThemes.id, row.id)).run();
  return getPlayer(ctx, playerId);
}

/** DELETE /players/{playerId}: removes the theme and its logo file; videos naming it fall back to the default look. */
export async function deletePlayer(ctx: ScopeCtx, playerId: string): Promise<void> {
  const row = findPlayer(ctx, playerId);
  ctx.db.delete(playerThemes).where(eq(playerThemes.id, row.id)).run();
  await ctx.storage.delete(playerKey(row));
}

const SORT = { name: playerThemes.name, createdAt: playerThemes.createdAt, updatedAt: playerThemes.updatedAt } as const;

/** GET /players: sorted by name, createdAt (default) or updatedAt, paginated. */
export function listPlayers(ctx: ScopeCtx, input: { url: string; query: Record<string, string | undefined> }) {
  const q = input.query;
  const sort = parseSort(q, Object.keys(SORT) as (keyof typeof SORT)[], "createdAt");
  const page = parsePage(q);
  const total = ctx.db.select({ n: count() }).from(playerThemes).where(inScope(ctx)).get()!.n;
  const direction = sort.desc ? desc : asc;
  const rows = ctx.db.select().from(playerThemes).where(inScope(ctx))
    .orderBy(direction(SORT[sort.sortBy]), direction(sql`${playerThemes}.rowid`))
    .limit(page.pageSize).offset(offsetOf(page)).all();
  return paginate(input.url, page, total, rows.map((r) => playerBody(ctx, r)));
}

/** What a player page needs from a theme. */
export interface PageTheme {
  theme: ThemeSettings;
  logo?: { url: string; link: string | null };
}

/**
 * The theme a video's or live stream's player page applies: the one its `playerId` names in the
 * same project and environment, else none (an unknown, deleted or foreign id gets the default look).
 */
export function pageTheme(app: AppContext, owner: { projectId: string; environment: Environment; playerId: string | null }): PageTheme | undefined {
  if (!owner.playerId) return undefined;
  const row = app.db.select().from(playerThemes).where(and(
    eq(playerThemes.id, owner.playerId), eq(playerThemes.projectId, owner.projectId), eq(playerThemes.environment, owner.environment),
  )).get();
  if (!row) return undefined;
  return {
    theme: readSettings(row.settings),
    logo: row.logoFormat ? { url: logoUrl(app, row.environment, row.id), link: row.logoLink } : undefined,
  };
}
