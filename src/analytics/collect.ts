// Player event reports from the player pages: checked, enriched (device, OS, browser, country,
// continent, a day-scoped viewer digest) and written to analytics_events in one transaction.
import { and, eq } from "drizzle-orm";
import type { Environment } from "../config";
import type { AppContext } from "../context";
import { analyticsEvents, liveStreams, videos } from "../db/schema";
import { continentOf, countryCode } from "./geo";
import { DAY_MS } from "./query";
import { isBot, parseUserAgent } from "./user-agent";

export const EVENT_TYPES = ["impression", "play", "start", "end", "heartbeat"] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** What one POST carries: a session's events since its previous report. */
export interface Report {
  mediaId: string;
  sessionId: string;
  referrer: string;
  events: { type: EventType; ageMs: number; watchS: number }[];
}

export const REPORT_MAX_BYTES = 8 * 1024;
const MAX_EVENTS = 20;
/** A report may describe events this old at most (they are sent at once, or batched per heartbeat). */
const MAX_AGE_MS = 60_000;
/** One report cannot claim more watching than this per event (heartbeats come every 10 s). */
const MAX_WATCH_S = 60;
const REFERRER_MAX = 2048;
const MEDIA = /^(vi|li)[0-9A-Za-z]{22}$/;
const SESSION = /^[0-9A-Za-z_-]{16,64}$/;

/** Reads a report's JSON; null when it is not one (the endpoint then answers 400 without detail). */
export function parseReport(text: string): Report | null {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return null;
  }
  const b = body as { mediaId?: unknown; sessionId?: unknown; referrer?: unknown; events?: unknown };
  if (!b || typeof b !== "object" || typeof b.mediaId !== "string" || !MEDIA.test(b.mediaId)) return null;
  if (typeof b.sessionId !== "string" || !SESSION.test(b.sessionId)) return null;
  if (!Array.isArray(b.events) || b.events.length < 1 || b.events.length > MAX_EVENTS) return null;
  const events: Report["events"] = [];
  for (const e of b.events as { type?: unknown; age?: unknown; watch?: unknown }[]) {
    if (!e || !(EVENT_TYPES as readonly unknown[]).includes(e.type)) return null;
    const age = typeof e.age === "number" && Number.isFinite(e.age) ? Math.min(Math.max(0, e.age), MAX_AGE_MS) : 0;
    const watch = typeof e.watch === "number" && Number.isFinite(e.watch) ? Math.min(Math.max(0, e.watch), MAX_WATCH_S) : 0;
    events.push({ type: e.type as EventType, ageMs: Math.round(age), watchS: watch });
  }
  const referrer = typeof b.referrer === "string" ? b.referrer.slice(0, REFERRER_MAX) : "";
  return { mediaId: b.mediaId, sessionId: b.sessionId, referrer, events };
}

/** The project of a video or live stream of this environment; undefined when there is none. */
function mediaOwner(app: AppContext, environment: Environment, mediaId: string): { projectId: string; mediaType: "video" | "live-stream" } | undefined {
  if (mediaId.startsWith("vi")) {
    const row = app.db.select({ projectId: videos.projectId }).from(videos).where(and(eq(videos.id, mediaId), eq(videos.environment, environment))).get();
    return row && { projectId: row.projectId, mediaType: "video" };
  }
  const row = app.db.select({ projectId: liveStreams.projectId }).from(liveStreams).where(and(eq(liveStreams.id, mediaId), eq(liveStreams.environment, environment))).get();
  return row && { projectId: row.projectId, mediaType: "live-stream" };
}

/** Who sent a report: their User-Agent, address and the configured country header's value. */
export interface Client {
  userAgent: string;
  address: string;
  country: string | null;
}

/**
 * Stores a report's events; false when the media is not of this environment. Crawlers are accepted
 * and dropped. `viewer` digests address and User-Agent with the UTC day, so viewers are unique per
 * day and the raw address is never stored.
 */
export function recordReport(app: AppContext, environment: Environment, report: Report, client: Client): boolean {
  const owner = mediaOwner(app, environment, report.mediaId);
  if (!owner) return false;
  if (isBot(client.userAgent)) return true;
  const now = app.clock.now().getTime();
  const ua = parseUserAgent(client.userAgent);
  const country = countryCode(client.country);
  const day = Math.floor(now / DAY_MS);
  const viewer = (Bun.SHA256.hash(`${day}\n${owner.projectId}\n${client.address}\n${client.userAgent}`, "base64") as string).slice(0, 22);
  const rows = report.events.map((e) => ({
    projectId: owner.projectId,
    environment,
    sessionId: report.sessionId,
    mediaId: report.mediaId,
    mediaType: owner.mediaType,
    type: e.type,
    emittedAt: now - e.ageMs,
    watchTime: e.type === "heartbeat" || e.type === "end" ? e.watchS : 0,
    country,
    continent: continentOf(country),
    ...ua,
    referrer: report.referrer,
    viewer,
  }));
  app.db.insert(analyticsEvents).values(rows).run();
  return true;
}
