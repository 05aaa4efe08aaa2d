import { and, eq, gte, type SQL } from "drizzle-orm";
import type { Environment } from "../config";
import type { AppContext } from "../context";
import { deliveryUsage, hostingUsage } from "../db/schema";
import { QueryCheck } from "../http/admin-list";
import { getProjectRow } from "../projects/service";
import { hostedOn, storedVideos } from "./hosting";
import { utcDay, type DeliveryKind } from "./record";

export interface UsageQuery {
  interval?: string;
  environment?: string;
}

const DAYS = { month: 30, week: 7 } as const;
/** Minutes to the thousandth (60 ms): short test clips and single segments still show. */
const minutes = (seconds: number) => Math.round((seconds / 60) * 1000) / 1000;

/** Validates the query and lists the interval's days, oldest first, ending today (UTC). */
function usageWindow(app: AppContext, projectId: string, query: UsageQuery): { days: string[]; environments: Environment[] } {
  getProjectRow(app, projectId);
  const check = new QueryCheck();
  const interval = check.oneOf("interval", query.interval, ["month", "week"] as const, "month");
  const environment = query.environment === undefined ? undefined : check.oneOf("environment", query.environment, ["sandbox", "production"] as const, "production");
  check.done();
  const today = app.clock.now().getTime();
  const days = Array.from({ length: DAYS[interval] }, (_, i) => utcDay(new Date(today - (DAYS[interval] - 1 - i) * 86_400_000)));
  return { days, environments: environment ? [environment] : ["sandbox", "production"] };
}

/**
 * GET /projects/{id}/delivery-usage: minutes served per day (month = 30 days, week = 7) of video HLS
 * (segments' durations), video MP4 (bytes' share of the duration) and live HLS; `environment`
 * (Vidhost's extension) narrows it to one environment.
 */
export function deliveryUsageReport(app: AppContext, projectId: string, query: UsageQuery) {
  const { days, environments } = usageWindow(app, projectId, query);
  const conditions: SQL[] = [eq(deliveryUsage.projectId, projectId), gte(deliveryUsage.day, days[0])];
  if (environments.length === 1) conditions.push(eq(deliveryUsage.environment, environments[0]));
  const served = new Map<string, Record<DeliveryKind, number>>();
  for (const r of app.db.select().from(deliveryUsage).where(and(...conditions)).all()) {
    const day = served.get(r.day) ?? { video_hls: 0, video_mp4: 0, live_stream_hls: 0 };
    day[r.kind] += r.seconds;
    served.set(r.day, day);
  }
  return {
    items: days.map((day) => ({
      collected_on: day,
      video_hls_duration_minutes: minutes(served.get(day)?.video_hls ?? 0),
      video_mp4_duration_minutes: minutes(served.get(day)?.video_mp4 ?? 0),
      live_stream_hls_duration_minutes: minutes(served.get(day)?.live_stream_hls ?? 0),
    })),
  };
}

/**
 * GET /projects/{id}/hosting-usage: minutes of video hosted at the end of each day (cumulative, not
 * added that day). Today is measured now; earlier days come from the hourly snapshots, and days
 * before Vidhost took any are estimated from the videos still stored that were created by then and
 * not yet discarded (a discarded video counts up to the day before its discard).
 */
export function hostingUsageReport(app: AppContext, projectId: string, query: UsageQuery) {
  const { days, environments } = usageWindow(app, projectId, query);
  const today = days[days.length - 1];
  const stored = storedVideos(app, projectId).filter((v) => environments.includes(v.environment));
  const snapshots = new Map<string, number>();
  for (const s of app.db.select().from(hostingUsage).where(and(eq(hostingUsage.projectId, projectId), gte(hostingUsage.day, days[0]))).all()) {
    snapshots.set(`${s.environment}/${s.day}`, s.seconds);
  }
  const storedBy = (environment: Environment, day: string) =>
    stored.filter((v) => v.environment === environment && hostedOn(v, day)).reduce((sum, v) => sum + v.seconds, 0);
  return {
    items: days.map((day) => ({
      collected_on: day,
      video_duration_minutes: minutes(environments.reduce((sum, env) =>
        sum + (day === today ? storedBy(env, day) : snapshots.get(`${env}/${day}`) ?? storedBy(env, day)), 0)),
    })),
  };
}
