// Retention: player events are kept 30 days in production and 24 hours in sandbox. Plays leaving
// retention are first added to analytics_play_totals, so play/total keeps counting them.
import { sql } from "drizzle-orm";
import type { AppContext } from "../context";
import { projects } from "../db/schema";
import { DAY_MS } from "./query";

export const RETENTION_MS = { production: 30 * DAY_MS, sandbox: DAY_MS } as const;

/** Deletes events past retention (rolling their plays into the totals in the same transaction); returns how many went. */
export function purgeAnalytics(app: AppContext): number {
  const now = app.clock.now().getTime();
  let deleted = 0;
  // Per project and environment, so each statement walks the (project, environment, time) index.
  const owners = app.db.select({ id: projects.id }).from(projects).all();
  app.db.transaction((tx) => {
    for (const { id } of owners) {
      for (const [environment, keepMs] of Object.entries(RETENTION_MS)) {
        const old = sql`project_id = ${id} AND environment = ${environment} AND emitted_at < ${now - keepMs}`;
        tx.run(sql`INSERT INTO analytics_play_totals (project_id, environment, media_id, media_type, plays)
          SELECT project_id, environment, media_id, media_type, COUNT(*) FROM analytics_events WHERE ${old} AND type = 'play'
          GROUP BY media_id
          ON CONFLICT (project_id, environment, media_id) DO UPDATE SET plays = plays + excluded.plays`);
        deleted += tx.run(sql`DELETE FROM analytics_events WHERE ${old}`).changes;
      }
    }
  });
  return deleted;
}
