import { randomUUID } from "node:crypto";
import { and, asc, count, desc, eq, sql } from "drizzle-orm";
import { atom } from "../clock";
import type { ScopeCtx } from "../context";
import { liveStreams } from "../db/schema";
import { invalidAttributes, invalidProblem, notFound, type Problem } from "../http/errors";
import { offsetOf, paginate, parsePage, parseSort } from "../http/pagination";
import { newId } from "../ids";
import { liveKey, liveStreamBody, type LiveStreamRow, type Restream } from "./body";

/** api.video accepts at most five restream destinations. */
export const MAX_RESTREAMS = 5;

export interface LiveStreamInput {
  name?: string;
  public?: boolean;
  playerId?: string | null;
  restreams?: unknown;
}

const inScope = (ctx: ScopeCtx) => and(eq(liveStreams.projectId, ctx.projectId), eq(liveStreams.environment, ctx.environment));

/** The live stream of this scope, or 404 naming `liveStreamId` (another project's id looks unknown). */
export function findLiveStream(ctx: ScopeCtx, liveStreamId: string): LiveStreamRow {
  const row = ctx.db.select().from(liveStreams).where(and(inScope(ctx), eq(liveStreams.id, liveStreamId))).get();
  if (!row) throw notFound("liveStreamId");
  return row;
}

const nonEmpty = (v: unknown): v is string => typeof v === "string" && v.trim() !== "" && !/[\s\u0000-\u001f]/.test(v.trim());

function serverUrlOk(v: unknown): boolean {
  if (typeof v !== "string" || /\s/.test(v)) return false;
  try {
    const u = new URL(v);
    return (u.protocol === "rtmp:" || u.protocol === "rtmps:") && u.hostname !== "";
  } catch {
    return false;
  }
}

/** Validates restream destinations: every problem, named like `restreams[0][serverUrl]`; or the clean list. */
export function parseRestreams(value: unknown): { restreams: Restream[]; problems: Problem[] } {
  if (!Array.isArray(value)) return { restreams: [], problems: [invalidProblem("restreams", "This attribute must be an array of {name, serverUrl, streamKey} objects.")] };
  if (value.length > MAX_RESTREAMS) return { restreams: [], problems: [invalidProblem("restreams", `This attribute must contain at most ${MAX_RESTREAMS} destinations.`)] };
  const problems: Problem[] = [];
  const restreams: Restream[] = [];
  value.forEach((item, i) => {
    const at = (field: string) => `restreams[${i}][${field}]`;
    if (item === null || typeof item !== "object" || Array.isArray(item)) {
      problems.push(invalidProblem(`restreams[${i}]`, "This attribute must be an object with name, serverUrl and streamKey."));
      return;
    }
    const r = item as Record<string, unknown>;
    for (const key of Object.keys(r)) {
      if (!["name", "serverUrl", "streamKey"].includes(key)) problems.push(invalidProblem(at(key), "This attribute is not allowed."));
    }
    if (typeof r.name !== "string" || r.name.trim() === "") problems.push(invalidProblem(at("name"), "This attribute must be a non-empty string."));
    if (!serverUrlOk(r.serverUrl)) problems.push(invalidProblem(at("serverUrl"), "This attribute must be an RTMP or RTMPS URL, e.g. rtmp://broadcast.example.com/app."));
    if (!nonEmpty(r.streamKey)) problems.push(invalidProblem(at("streamKey"), "This attribute must be a non-empty string without spaces."));
    if (!problems.length) restreams.push({ name: r.name as string, serverUrl: r.serverUrl as string, streamKey: (r.streamKey as string).trim() });
  });
  return { restreams, problems };
}

function columns(input: LiveStreamInput): Partial<LiveStreamRow> {
  const c: Partial<LiveStreamRow> = {};
  if (input.name !== undefined) c.name = input.name;
  if (input.public !== undefined) c.public = input.public;
  if (input.playerId !== undefined) c.playerId = input.playerId;
  if (input.restreams !== undefined) {
    const { restreams, problems } = parseRestreams(input.restreams);
    if (problems.length) throw invalidAttributes(problems);
    c.restreams = JSON.stringify(restreams);
  }
  return c;
}

/** POST /live-streams: a live stream with a new random stream key. */
export function createLiveStream(ctx: ScopeCtx, input: LiveStreamInput & { name: string }) {
  const now = atom(ctx.clock.now());
  const row = {
    id: newId("li"), projectId: ctx.projectId, environment: ctx.environment, streamKey: randomUUID(),
    createdAt: now, updatedAt: now, ...columns(input), name: input.name,
  };
  ctx.db.insert(liveStreams).values(row).run();
  return liveStreamBody(ctx, findLiveStream(ctx, row.id));
}

/** GET /live-streams/{id}. */
export function getLiveStream(ctx: ScopeCtx, liveStreamId: string) {
  return liveStreamBody(ctx, findLiveStream(ctx, liveStreamId));
}

/** PATCH /live-streams/{id}: changes the given fields; `restreams` replaces the list (`[]` clears it), used from the next publish. */
export function updateLiveStream(ctx: ScopeCtx, liveStreamId: string, input: LiveStreamInput) {
  findLiveStream(ctx, liveStreamId);
  const changes = columns(input);
  if (Object.keys(changes).length) {
    ctx.db.update(liveStreams).set({ ...changes, updatedAt: atom(ctx.clock.now()) }).where(eq(liveStreams.id, liveStreamId)).run();
  }
  return getLiveStream(ctx, liveStreamId);
}

/** DELETE /live-streams/{id}: ends a running broadcast first (its recording still becomes a video), then removes the stream and its live files. */
export async function deleteLiveStream(ctx: ScopeCtx, liveStreamId: string): Promise<void> {
  const row = findLiveStream(ctx, liveStreamId);
  ctx.live.complete(row);
  ctx.db.delete(liveStreams).where(eq(liveStreams.id, row.id)).run();
  // The recording pieces stay until the broadcast's finish job has made them a video.
  await Promise.all(["hls", "picture.jpg", "thumbnail"].map((name) => ctx.storage.delete(liveKey(row, name))));
}

/** PUT /live-streams/{id}/complete: ends the broadcast now, without waiting for a reconnect (asynchronous). */
export function completeLiveStream(ctx: ScopeCtx, liveStreamId: string): void {
  ctx.live.complete(findLiveStream(ctx, liveStreamId));
}

const SORT = { name: liveStreams.name, createdAt: liveStreams.createdAt, updatedAt: liveStreams.updatedAt } as const;

/** GET /live-streams: filtered by exact stream key and partial name, sorted, paginated. */
export function listLiveStreams(ctx: ScopeCtx, input: { url: string; query: Record<string, string | undefined> }) {
  const q = input.query;
  const sort = parseSort(q, Object.keys(SORT) as (keyof typeof SORT)[], "createdAt");
  const page = parsePage(q);
  const where = and(
    inScope(ctx),
    q.streamKey ? eq(liveStreams.streamKey, q.streamKey) : undefined,
    q.name ? sql`instr(lower(${liveStreams.name}), lower(${q.name})) > 0` : undefined,
  );
  const total = ctx.db.select({ n: count() }).from(liveStreams).where(where).get()!.n;
  const direction = sort.desc ? desc : asc;
  const rows = ctx.db.select().from(liveStreams).where(where)
    .orderBy(direction(SORT[sort.sortBy]), direction(sql`${liveStreams}.rowid`))
    .limit(page.pageSize).offset(offsetOf(page)).all();
  return paginate(input.url, page, total, rows.map((r) => liveStreamBody(ctx, r)));
}
