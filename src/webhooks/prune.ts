// Delivery history (each event's body and every attempt) is kept 30 days, except that each webhook's
// newest deliveries stay whatever their age, so the dashboard's recent-deliveries list (up to 100)
// never empties for a quiet webhook.
import { inArray, sql } from "drizzle-orm";
import type { AppContext } from "../context";
import { webhookAttempts, webhookDeliveries, webhooks } from "../db/schema";
import { PRUNE_BATCH, yieldTurn } from "../jobs/prune";

/** Ended deliveries (delivered, failed) are kept this long after they were created. */
export const DELIVERY_KEEP_MS = 30 * 24 * 3600 * 1000;
/** The newest deliveries per webhook kept regardless of age: the dashboard's largest page. */
export const RECENT_DELIVERIES_KEPT = 100;

/** Deletes ended deliveries older than 30 days with their attempts, a batch at a time; returns how many deliveries went. */
export async function pruneDeliveries(app: Pick<AppContext, "db" | "clock">, batch = PRUNE_BATCH): Promise<number> {
  const cutoff = new Date(app.clock.now().getTime() - DELIVERY_KEEP_MS).toISOString();
  let deleted = 0;
  // Per webhook, so each query walks the (webhook_id, created_at) index instead of the whole table.
  for (const { id } of app.db.select({ id: webhooks.id }).from(webhooks).all()) {
    for (;;) {
      const ids = app.db.all<{ id: string }>(sql`SELECT id FROM webhook_deliveries
        WHERE webhook_id = ${id} AND created_at < ${cutoff} AND status != 'pending'
          AND created_at < (SELECT created_at FROM webhook_deliveries WHERE webhook_id = ${id}
                            ORDER BY created_at DESC LIMIT 1 OFFSET ${RECENT_DELIVERIES_KEPT - 1})
        LIMIT ${batch}`).map((r) => r.id);
      if (ids.length) app.db.transaction((tx) => {
        for (let i = 0; i < ids.length; i += 500) {
          const chunk = ids.slice(i, i + 500);
          tx.delete(webhookAttempts).where(inArray(webhookAttempts.deliveryId, chunk)).run();
          tx.delete(webhookDeliveries).where(inArray(webhookDeliveries.id, chunk)).run();
        }
      });
      deleted += ids.length;
      if (ids.length < batch) break;
      await yieldTurn();
    }
  }
  return deleted;
}
