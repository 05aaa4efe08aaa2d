// The analytics aggregations, in SQL: every metric is one statement that groups rows into
// (k, v) pairs, where k is '' (one total), a dimension's value, or a time bucket's start (epoch ms).
// Nothing loads raw events into JavaScript. Definitions are in README's Analytics section.
import { sql, type SQL } from "drizzle-orm";
import type { Environment } from "../config";
import type { Db } from "../db/client";
import { DAY_MS, LIST_FILTER_COLUMNS, type Filters, type Timeframe } from "./query";

/** How a metric's rows are grouped. */
export type Grouping = { by: "all" } | { by: "dimension"; column: DimensionColumn } | { by: "bucket"; sizeMs: number };

export const DIMENSIONS = {
  "media-id": "media_id",
  "media-type": "media_type",
  continent: "continent",
  country: "country",
  "device-type": "device_type",
  "operating-system": "operating_system",
  browser: "browser",
  referrer: "referrer",
} as const;
export type DimensionColumn = (typeof DIMENSIONS)[keyof typeof DIMENSIONS];

export interface Scope {
  projectId: string;
  environment: Environment;
}

export interface Select {
  scope: Scope;
  timeframe: Timeframe;
  filters: Filters;
  grouping: Grouping;
}

/** A viewer still counts as watching when their reports are at most this far apart (heartbeats come every 10 s). */
export const RUN_GAP_MS = 25_000;
/** Events this long before `from` still count toward a session's state (its watch total, its first frame). */
const SESSION_LOOKBACK_MS = DAY_MS;

const inList = (column: string, values: string[]) => sql`${sql.raw(column)} IN (${sql.join(values.map((v) => sql`${v}`), sql`, `)})`;

/** The filterBy conditions on analytics_events columns (tag: a video of this scope carrying it). */
function filterConditions(scope: Scope, f: Filters): SQL[] {
  const out: SQL[] = [];
  for (const [key, column] of Object.entries(LIST_FILTER_COLUMNS)) {
    const values = f[key as keyof typeof LIST_FILTER_COLUMNS];
    if (values?.length) out.push(inList(column, values));
  }
  if (f.mediaType) out.push(sql`media_type = ${f.mediaType}`);
  if (f.tag !== undefined) {
    out.push(sql`media_id IN (SELECT v.id FROM videos v, json_each(v.tags) j
      WHERE v.project_id = ${scope.projectId} AND v.environment = ${scope.environment} AND j.value = ${f.tag})`);
  }
  return out;
}

/** A heartbeat covers at most this much time before it is sent (collect.ts caps the seconds it reports). */
const REPORT_COVERS_MS = 60_000;

/** The `f` CTE: this scope's filtered events from `lowerBound` up to `to` (exclusive) plus `upperSlack`. */
function events(s: Select, lowerBound: number, upperSlack = 0): SQL {
  const where = [
    sql`project_id = ${s.scope.projectId}`, sql`environment = ${s.scope.environment}`,
    sql`emitted_at >= ${lowerBound}`, sql`emitted_at < ${s.timeframe.to + upperSlack}`,
    ...filterConditions(s.scope, s.filters),
  ];
  return sql`f AS (SELECT * FROM analytics_events WHERE ${sql.join(where, sql` AND `)})`;
}

/** The group key over a row with `emitted_at` and the dimension columns. */
function key(g: Grouping, at = "emitted_at"): SQL {
  if (g.by === "dimension") return sql.raw(g.column);
  // better-sqlite3 binds numbers as REAL: CAST keeps the division whole (a floor, times are positive).
  if (g.by === "bucket") return sql`CAST(${sql.raw(at)} / ${g.sizeMs} AS INTEGER) * ${g.sizeMs}`;
  return sql`''`;
}

/** impression | play | start | end: how many such events fell in the timeframe. */
export function countEvents(s: Select, type: string): SQL {
  return sql`WITH ${events(s, s.timeframe.from)} SELECT ${key(s.grouping)} AS k, COUNT(*) AS v FROM f WHERE type = ${type} GROUP BY k`;
}

/** play-rate: plays divided by impressions in the timeframe (0 without impressions). */
export function playRate(s: Select): SQL {
  return sql`WITH ${events(s, s.timeframe.from)} SELECT ${key(s.grouping)} AS k,
    COALESCE(SUM(type = 'play') * 1.0 / NULLIF(SUM(type = 'impression'), 0), 0) AS v
    FROM f WHERE type IN ('play', 'impression') GROUP BY k`;
}

/** watch-time in seconds: the sum, or the average per session that watched. */
export function watchTime(s: Select, aggregation: "sum" | "average"): SQL {
  const value = aggregation === "sum" ? sql`SUM(watch_time)` : sql`SUM(watch_time) / COUNT(DISTINCT session_id)`;
  return sql`WITH ${events(s, s.timeframe.from)} SELECT ${key(s.grouping)} AS k, ${value} AS v FROM f WHERE watch_time > 0 GROUP BY k`;
}

/** impression-time in ms: from a session's impression to its first frame, for first frames in the timeframe. */
export function impressionTime(s: Select, aggregation: "sum" | "average"): SQL {
  const value = aggregation === "sum" ? sql`SUM(st - imp)` : sql`AVG(st - imp)`;
  return sql`WITH ${events(s, s.timeframe.from - SESSION_LOOKBACK_MS)},
    s AS (SELECT session_id, MIN(CASE WHEN type = 'impression' THEN emitted_at END) AS imp,
      MIN(CASE WHEN type = 'start' THEN emitted_at END) AS st, MIN(${key(s.grouping)}) AS k
      FROM f WHERE type IN ('impression', 'start') GROUP BY session_id)
    SELECT k, ${value} AS v FROM s WHERE st >= ${s.timeframe.from} AND imp IS NOT NULL AND st >= imp GROUP BY k`;
}

/**
 * view: sessions whose total watch time reached `seconds`, counted when (and where) they reached it;
 * `unique` counts distinct viewers instead of sessions.
 */
export function views(s: Select, seconds: number, unique: boolean): SQL {
  const g = s.grouping.by === "dimension" ? sql.raw(s.grouping.column) : sql`''`;
  return sql`WITH ${events(s, s.timeframe.from - SESSION_LOOKBACK_MS)},
    w AS (SELECT ${g} AS d, viewer, emitted_at, watch_time,
      SUM(watch_time) OVER (PARTITION BY session_id ORDER BY emitted_at, id ROWS UNBOUNDED PRECEDING) AS cum
      FROM f WHERE watch_time > 0)
    SELECT ${s.grouping.by === "dimension" ? sql`d` : key(s.grouping)} AS k, ${unique ? sql`COUNT(DISTINCT viewer)` : sql`COUNT(*)`} AS v
    FROM w WHERE cum >= ${seconds} AND cum - watch_time < ${seconds} AND emitted_at >= ${s.timeframe.from} GROUP BY k`;
}

/**
 * ccv: each session's (or, with `unique`, viewer's) watching runs — start, heartbeat and end reports
 * no more than RUN_GAP_MS apart, each heartbeat covering the seconds it reports — clipped to the
 * timeframe (or to each time bucket). `peak`: the most runs open at one instant (a running sum over
 * +1/-1 points); `average`: the runs' total length over the window's length.
 */
export function concurrentViewers(s: Select, aggregation: "peak" | "average", unique: boolean): SQL {
  const { from, to } = s.timeframe;
  const who = unique ? sql`viewer` : sql`session_id`;
  const d = s.grouping.by === "dimension" ? sql.raw(s.grouping.column) : sql`''`;
  // Reports sent after `to` may cover watching before it; the pieces below clip them to the window.
  const runs = sql`WITH RECURSIVE ${events(s, from - SESSION_LOOKBACK_MS, REPORT_COVERS_MS)},
    a AS (SELECT ${who} AS who, ${d} AS d, emitted_at - CAST(watch_time * 1000 AS INTEGER) AS s, emitted_at AS e, id
      FROM f WHERE type IN ('start', 'heartbeat', 'end')),
    b AS (SELECT *, MAX(e) OVER (PARTITION BY who, d ORDER BY s, id ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev FROM a),
    c AS (SELECT *, SUM(CASE WHEN prev IS NULL OR s > prev + ${RUN_GAP_MS} THEN 1 ELSE 0 END)
      OVER (PARTITION BY who, d ORDER BY s, id ROWS UNBOUNDED PRECEDING) AS run FROM b),
    r AS (SELECT d, MIN(s) AS rs, MAX(e) AS re FROM c GROUP BY who, d, run
      HAVING MAX(e) >= ${from} AND MIN(s) < ${to} AND NOT (MAX(e) = ${from} AND MIN(s) < ${from}))`;
  // Pieces: each run clipped to its window [ws, we): the timeframe, or each bucket it touches.
  const pieces = s.grouping.by === "bucket"
    ? sql`bk(k) AS (SELECT CAST(${from} / ${s.grouping.sizeMs} AS INTEGER) * ${s.grouping.sizeMs} UNION ALL SELECT k + ${s.grouping.sizeMs} FROM bk WHERE k + ${s.grouping.sizeMs} < ${to}),
      p AS (SELECT bk.k AS k, MAX(rs, bk.k, ${from}) AS ps, MIN(re, bk.k + ${s.grouping.sizeMs}, ${to}) AS pe,
        MAX(bk.k, ${from}) AS ws, MIN(bk.k + ${s.grouping.sizeMs}, ${to}) AS we
        FROM r JOIN bk ON r.re >= bk.k AND r.rs < bk.k + ${s.grouping.sizeMs} AND NOT (r.re = bk.k AND r.rs < bk.k))`
    : sql`p AS (SELECT d AS k, MAX(rs, ${from}) AS ps, MIN(re, ${to}) AS pe, ${from} AS ws, ${to} AS we FROM r)`;
  if (aggregation === "average") {
    return sql`${runs}, ${pieces} SELECT k, SUM(pe - ps) * 1.0 / MAX(we - ws) AS v FROM p GROUP BY k`;
  }
  return sql`${runs}, ${pieces},
    pt AS (SELECT k, ps AS t, 1 AS delta FROM p UNION ALL SELECT k, pe AS t, -1 AS delta FROM p),
    cc AS (SELECT k, SUM(delta) OVER (PARTITION BY k ORDER BY t, delta DESC ROWS UNBOUNDED PRECEDING) AS c FROM pt)
    SELECT k, MAX(c) AS v FROM cc GROUP BY k`;
}

/** play total: every play ever, retention ignored (rolled-up totals plus the plays still kept), per media or in all. */
export function playTotals(scope: Scope, f: Filters, perMedia: boolean): SQL {
  const where = [sql`1 = 1`, ...filterConditions(scope, { mediaId: f.mediaId, mediaType: f.mediaType })];
  return sql`SELECT ${perMedia ? sql`media_id` : sql`''`} AS k, SUM(n) AS v FROM (
      SELECT media_id, media_type, plays AS n FROM analytics_play_totals WHERE project_id = ${scope.projectId} AND environment = ${scope.environment}
      UNION ALL
      SELECT media_id, media_type, 1 AS n FROM analytics_events WHERE project_id = ${scope.projectId} AND environment = ${scope.environment} AND type = 'play'
    ) WHERE ${sql.join(where, sql` AND `)} GROUP BY k`;
}

export interface Row {
  k: string | number;
  v: number;
}

/** One grouped statement's single value (0 when nothing matched). */
export function total(db: Db, statement: SQL): number {
  const row = db.all<Row>(sql`SELECT COALESCE(SUM(v), 0) AS v FROM (${statement})`)[0];
  return row?.v ?? 0;
}

/** One page of a grouped statement's rows, sorted in SQL, with the count of all rows. */
export function pageOf(db: Db, statement: SQL, order: { by: "k" | "v"; direction: "asc" | "desc" }, limit: number, offset: number): { rows: Row[]; count: number } {
  const direction = sql.raw(order.direction === "desc" ? "DESC" : "ASC");
  const tie = order.by === "v" ? sql`, k ASC` : sql``;
  // The count rides along with the page (a window over all rows), so the statement runs once; only a
  // page past the end, which has no row to carry it, asks again.
  const rows = db.all<Row & { n: number }>(sql`SELECT k, v, COUNT(*) OVER () AS n FROM (${statement}) ORDER BY ${sql.raw(order.by)} ${direction}${tie} LIMIT ${limit} OFFSET ${offset}`);
  const count = rows.length ? rows[0].n : offset > 0 ? (db.all<{ n: number }>(sql`SELECT COUNT(*) AS n FROM (${statement})`)[0]?.n ?? 0) : 0;
  return { rows: rows.map(({ k, v }) => ({ k, v })), count };
}
