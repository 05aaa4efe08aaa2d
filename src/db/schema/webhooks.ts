import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { projects } from "./projects";

export const webhooks = sqliteTable(
  "webhooks",
  {
    id: text("id").primaryKey(),
    projectId: text("project_id").notNull().references(() => projects.id, { onDelete: "cascade" }),
    environment: text("environment", { enum: ["sandbox", "production"] }).notNull(),
    url: text("url").notNull(),
    /** JSON array of event names. */
    events: text("events").notNull(),
    signatureSecret: text("signature_secret").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [index("webhooks_scope").on(t.projectId, t.environment, t.createdAt)],
);

/** One row per event sent to one webhook; the body is kept byte-exact so every attempt signs the same bytes. */
export const webhookDeliveries = sqliteTable(
  "webhook_deliveries",
  {
    id: text("id").primaryKey(),
    webhookId: text("webhook_id").notNull().references(() => webhooks.id, { onDelete: "cascade" }),
    event: text("event").notNull(),
    body: text("body").notNull(),
    status: text("status", { enum: ["pending", "delivered", "failed"] }).notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [index("webhook_deliveries_webhook").on(t.webhookId, t.createdAt)],
);

export const webhookAttempts = sqliteTable(
  "webhook_attempts",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    deliveryId: text("delivery_id").notNull().references(() => webhookDeliveries.id, { onDelete: "cascade" }),
    attemptedAt: text("attempted_at").notNull(),
    /** HTTP status of the receiver's answer, null when none came (timeout, refused). */
    statusCode: integer("status_code"),
    error: text("error"),
    durationMs: integer("duration_ms").notNull(),
  },
  (t) => [index("webhook_attempts_delivery").on(t.deliveryId)],
);
