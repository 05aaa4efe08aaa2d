/** Time source injected everywhere so tests can move it (token expiry, schedules). */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** ATOM date with a numeric offset, as api.video writes them: 2026-11-21T10:00:00+00:00. */
export function atom(date: Date): string {
  return `${date.toISOString().slice(0, 19)}+00:00`;
}
