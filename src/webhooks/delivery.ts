import { eq } from "drizzle-orm";
import type { AppContext } from "../context";
import { webhookAttempts, webhookDeliveries, webhooks } from "../db/schema";
import type { JobHandler } from "../jobs/queue";
import { RefusedHostError } from "../http/outbound-address";
import { hmacSha256Hex } from "../security";
import { DELIVERY_JOB } from "./events";
import { postWebhook } from "./post";

/** What an attempt that got no answer records: a refused address says why, and which setting allows it. */
function attemptError(err: unknown): string {
  if (err instanceof RefusedHostError && err.why) {
    return `${err.name}: ${err.message} Webhooks do not connect to internal addresses unless VIDHOST_WEBHOOK_ALLOW_PRIVATE=true.`;
  }
  return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}

/** Posts a delivery's exact stored body, signed, to a checked address (post.ts); 2xx is success, anything else is retried 3 s later. */
export function webhookDeliveryHandler(app: AppContext): JobHandler<{ deliveryId: string }> {
  return {
    kind: DELIVERY_JOB,
    concurrency: 4,
    leaseMs: app.config.webhookTimeoutMs + 30_000,
    giveUp({ deliveryId }) {
      // The worker died during the last attempt: the delivery will not be tried again.
      app.db.update(webhookDeliveries).set({ status: "failed" }).where(eq(webhookDeliveries.id, deliveryId)).run();
    },
    async run({ deliveryId }, run) {
      const delivery = app.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, deliveryId)).get();
      const hook = delivery && app.db.select().from(webhooks).where(eq(webhooks.id, delivery.webhookId)).get();
      if (!delivery || !hook) return { status: "skip", reason: "the webhook was deleted" };

      const started = Date.now();
      let statusCode: number | null = null;
      let error: string | null = null;
      try {
        statusCode = await postWebhook(hook.url, delivery.body, {
          "content-type": "application/json",
          "user-agent": "vidhost-webhooks",
          "x-api-video-webhookid": hook.id,
          "x-api-video-signature": hmacSha256Hex(hook.signatureSecret, delivery.body),
        }, { allowPrivate: app.config.webhookAllowPrivate, timeoutMs: app.config.webhookTimeoutMs }, run.signal);
      } catch (err) {
        error = attemptError(err);
      }
      if (run.signal.aborted) return { status: "failure", error: "shutting down" };

      const ok = statusCode !== null && statusCode < 300;
      const last = run.attempt >= run.maxAttempts;
      app.db.transaction((tx) => {
        tx.insert(webhookAttempts).values({
          deliveryId, attemptedAt: new Date(started).toISOString(), statusCode, error, durationMs: Date.now() - started,
        }).run();
        if (ok || last) tx.update(webhookDeliveries).set({ status: ok ? "delivered" : "failed" }).where(eq(webhookDeliveries.id, deliveryId)).run();
      });
      if (ok) return { status: "success" };
      const reason = error ?? `the receiver answered ${statusCode}`;
      app.log.warn("webhook attempt failed", { webhookId: hook.id, deliveryId, attempt: run.attempt, reason });
      return last ? { status: "failure", error: reason } : { status: "retry", delayMs: app.config.webhookRetryDelayMs, error: reason };
    },
  };
}
