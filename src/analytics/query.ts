// Reads the `/data/...` query strings: from/to, unique, viewDuration, filterBy[...], sortBy,
// sortOrder, interval, as the official clients send them (`filterBy[country][0]=FR`, dates as
// `2024-02-05T00:00:00Z`), and refuses anything else with api.video's request-invalid-query-parameter.
import { ApiError } from "../http/errors";

export const DAY_MS = 86_400_000;
/** How far back `from` may reach (api.video: "the maximum value is 30 days ago"). */
export const MAX_LOOKBACK_MS = 30 * DAY_MS;

export interface Filters {
  mediaId?: string[];
  mediaType?: "video" | "live-stream";
  continent?: string[];
  country?: string[];
  deviceType?: string[];
  operatingSystem?: string[];
  browser?: string[];
  tag?: string;
  referrer?: string[];
}

export interface Timeframe {
  /** epoch ms, inclusive */
  from: number;
  /** epoch ms, exclusive */
  to: number;
}

/** 400 request-invalid-query-parameter naming the parameter, with a readable detail. */
export const invalidQuery = (name: string, detail: string) =>
  new ApiError(400, "request-invalid-query-parameter", "A query parameter is invalid.", { name, detail });

/** The filterBy keys that take a list, and the analytics_events column each one matches. */
export const LIST_FILTER_COLUMNS = {
  mediaId: "media_id", continent: "continent", country: "country", deviceType: "device_type",
  operatingSystem: "operating_system", browser: "browser", referrer: "referrer",
} as const;
type ListFilter = keyof typeof LIST_FILTER_COLUMNS;
const CONTINENTS = ["AS", "AF", "NA", "SA", "AN", "EU", "AZ", "OC"];
const REFERRER_MAX = 2048;

/** The query of a request: plain parameters by name, and filterBy values by key. */
export interface RawQuery {
  params: Map<string, string[]>;
  filterBy: Map<string, string[]>;
}

/** Splits the URL's query; any parameter not in `allowed` (nor a filterBy key) is refused. */
export function readQuery(url: string, allowed: readonly string[]): RawQuery {
  const params = new Map<string, string[]>();
  const filterBy = new Map<string, string[]>();
  for (const [key, value] of new URL(url, "http://localhost").searchParams) {
    const filter = /^filterBy\[([A-Za-z]+)\](?:\[(\d*)\])?$/.exec(key);
    const [target, name] = filter ? [filterBy, filter[1]] : [params, key];
    if (!filter && !allowed.includes(key)) throw invalidQuery(key, "This field was not expected.");
    target.set(name, [...(target.get(name) ?? []), value]);
  }
  return { params, filterBy };
}

/** The single value of a plain parameter; a repeated one is refused. */
export function single(q: RawQuery, name: string): string | undefined {
  const values = q.params.get(name);
  if (!values) return undefined;
  if (values.length > 1) throw invalidQuery(name, "This parameter takes a single value.");
  return values[0];
}

const DATE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i;

function date(name: string, raw: string): number {
  // A literal "+" in a hand-written query string arrives as a space.
  const value = raw.trim().replace(/ (\d{2}:?\d{2})$/, "+$1");
  const ms = DATE.test(value) ? Date.parse(value) : NaN;
  if (!Number.isFinite(ms)) throw invalidQuery(name, `This value is not a valid date-time; use the ATOM format, e.g. 2024-02-05T00:00:00+01:00.`);
  return ms;
}

/** `to` defaults to now, `from` to one day before `to`; `from` may not reach past 30 days ago. */
export function timeframe(q: RawQuery, now: number): Timeframe {
  const rawTo = single(q, "to");
  const rawFrom = single(q, "from");
  const to = rawTo !== undefined ? date("to", rawTo) : now;
  const from = rawFrom !== undefined ? date("from", rawFrom) : to - DAY_MS;
  if (from < now - MAX_LOOKBACK_MS) throw invalidQuery("from", "This value cannot be more than 30 days ago.");
  if (from >= to) throw invalidQuery("from", "This value must be before `to`.");
  return { from, to };
}

/** `unique=true|false`, accepted only where the metric counts viewers. */
export function unique(q: RawQuery, accepted: boolean): boolean {
  const raw = single(q, "unique");
  if (raw === undefined) return false;
  if (!accepted) throw invalidQuery("unique", "This parameter is only accepted with the ccv, ccv-peak, ccv-average and view metrics.");
  if (raw !== "true" && raw !== "false") throw invalidQuery("unique", 'This value must be "true" or "false".');
  return raw === "true";
}

/** `viewDuration=3s|5s|10s|30s` in seconds (default 5), accepted only with the view metric. */
export function viewDuration(q: RawQuery, accepted: boolean): number {
  const raw = single(q, "viewDuration");
  if (raw === undefined) return 5;
  if (!accepted) throw invalidQuery("viewDuration", "This parameter is only accepted with the view metric.");
  if (!["3s", "5s", "10s", "30s"].includes(raw)) throw invalidQuery("viewDuration", 'This view duration is invalid. Use one of "3s", "5s", "10s", "30s".');
  return Number(raw.slice(0, -1));
}

/** `sortBy` among `fields` (default the first) and `sortOrder` (default desc for metricValue, else asc). */
export function sort<F extends string>(q: RawQuery, fields: readonly F[]): { sortBy: F; sortOrder: "asc" | "desc" } {
  const sortBy = (single(q, "sortBy") ?? fields[0]) as F;
  if (!fields.includes(sortBy)) throw invalidQuery("sortBy", `This value must be one of: ${fields.join(", ")}.`);
  const sortOrder = single(q, "sortOrder") ?? (sortBy === "metricValue" ? "desc" : "asc");
  if (sortOrder !== "asc" && sortOrder !== "desc") throw invalidQuery("sortOrder", 'This value must be "asc" or "desc".');
  return { sortBy, sortOrder };
}

export const INTERVALS = { minute: 60_000, hour: 3_600_000, day: DAY_MS } as const;
export type Interval = keyof typeof INTERVALS;

/** `interval`: hour for spans up to 2 days, else day; minute only for spans of at most 60 minutes. */
export function interval(q: RawQuery, tf: Timeframe): Interval {
  const raw = single(q, "interval");
  if (raw === undefined) return tf.to - tf.from <= 2 * DAY_MS ? "hour" : "day";
  if (!Object.hasOwn(INTERVALS, raw)) throw invalidQuery("interval", 'This interval is invalid. Use one of "minute", "hour", "day".');
  if (raw === "minute" && tf.to - tf.from > 60 * 60_000) throw invalidQuery("interval", "This interval cannot be used with a timeframe over 60 minutes.");
  return raw as Interval;
}

/** A referrer filter as sent: api.video asks for URL-encoded URLs, so one more decoding is undone. */
function referrerValue(raw: string): string {
  if (raw.length > REFERRER_MAX) throw invalidQuery("filterBy[referrer]", `This value should not contain more than ${REFERRER_MAX} characters.`);
  if (!/%[0-9A-Fa-f]{2}/.test(raw)) return raw;
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/**
 * The filterBy keys. `playTotal`: the play-total operations take only mediaId and mediaType (their
 * counts outlive the events, kept per media); the other operations refuse mediaType.
 */
export function filters(q: RawQuery, playTotal: boolean): Filters {
  const out: Filters = {};
  for (const [key, values] of q.filterBy) {
    const name = `filterBy[${key}]`;
    if (playTotal && key !== "mediaId" && key !== "mediaType") throw invalidQuery(name, "Only the mediaId and mediaType filters are accepted with play totals.");
    if (key === "mediaType") {
      if (!playTotal) throw invalidQuery(name, "The mediaType filter is only accepted with play/total and play-total/media-id.");
      if (values.length !== 1 || (values[0] !== "video" && values[0] !== "live-stream")) throw invalidQuery(name, 'This value must be "video" or "live-stream".');
      out.mediaType = values[0];
    } else if (key === "tag") {
      if (values.length !== 1) throw invalidQuery(name, "This filter accepts a single value.");
      out.tag = values[0];
    } else if (Object.hasOwn(LIST_FILTER_COLUMNS, key)) {
      let list = values;
      if (key === "referrer") list = values.map(referrerValue);
      if (key === "continent") {
        const bad = values.find((v) => !CONTINENTS.includes(v));
        if (bad !== undefined) throw invalidQuery(name, `"${bad}" is not a continent; use one of AS, AF, NA, SA, AN, EU, AZ (or OC).`);
        // api.video's AZ is GeoNames' OC (Oceania), which is what events store.
        list = values.map((v) => (v === "AZ" ? "OC" : v));
      }
      out[key as ListFilter] = [...new Set(list)];
    } else {
      throw invalidQuery(name, "This filter does not exist; use mediaId, mediaType, continent, country, deviceType, operatingSystem, browser, tag or referrer.");
    }
  }
  return out;
}
