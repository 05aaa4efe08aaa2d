import { and, eq } from "drizzle-orm";
import type { Environment } from "../config";
import type { AppContext } from "../context";
import type { Db } from "../db/client";
import { webhookDeliveries, webhooks } from "../db/schema";
import { newId } from "../ids";

/** The four events Vidhost emits (the seed rules forbid any other). */
export const WEBHOOK_EVENTS = [
  "live-stream.broadcast.started",
  "live-stream.broadcast.ended",
  "video.source.recorded",
  "video.encoding.quality.completed",
] as const;

export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/** Each event's fields besides `type` and `emittedAt`. */
export interface EventFields {
  "live-stream.broadcast.started": { liveStreamId: string };
  "live-stream.broadcast.ended": { liveStreamId: string };
  "video.source.recorded": { liveStreamId: string; videoId: string };
  "video.encoding.quality.completed": { videoId: string; liveStreamId?: string; encoding: "hls" | "mp4"; quality: string };
}

export const DELIVERY_JOB = "webhook.deliver";
export const DELIVERY_ATTEMPTS = 3;

type Tx = Pick<Db, "select" | "insert">;

/**
 * Records one delivery per subscribed webhook, in the caller's transaction (the outbox), so the
 * state change and its notifications commit together; the dispatcher posts them afterwards.
 */
export function emitEvent<E extends WebhookEvent>(
  app: Pick<AppContext, "queue" | "clock">,
  tx: Tx,
  scope: { projectId: string; environment: Environment },
  type: E,
  fields: EventFields[E],
): number {
  const subscribed = tx.select().from(webhooks)
    .where(and(eq(webhooks.projectId, scope.projectId), eq(webhooks.environment, scope.environment))).all()
    .filter((w) => (JSON.parse(w.events) as string[]).includes(type));
  if (!subscribed.length) return 0;
  const now = app.clock.now();
  const body = JSON.stringify({ type, emittedAt: now.toISOString(), ...fields });
  for (const hook of subscribed) {
    const id = newId("delivery_");
    tx.insert(webhookDeliveries).values({ id, webhookId: hook.id, event: type, body, status: "pending", createdAt: now.toISOString() }).run();
    app.queue.enqueue(tx, DELIVERY_JOB, { deliveryId: id }, { maxAttempts: DELIVERY_ATTEMPTS });
  }
  app.queue.notify();
  return subscribed.length;
}
