import { and, count, eq, like, sql } from "drizzle-orm";
import { atom } from "../clock";
import type { ScopeCtx } from "../context";
import { preparedQuery } from "../db/prepared";
import { webhooks } from "../db/schema";
import { internalHostName } from "../http/outbound-address";
import { invalidAttributes, invalidProblem, notFound, requiredProblem, type Problem } from "../http/errors";
import { offsetOf, paginate, type Page } from "../http/pagination";
import { newId, randomBase62 } from "../ids";
import { WEBHOOK_EVENTS, type WebhookEvent } from "./events";

type WebhookRow = typeof webhooks.$inferSelect;

function webhookBody(row: WebhookRow) {
  return {
    webhookId: row.id,
    createdAt: row.createdAt,
    events: JSON.parse(row.events) as string[],
    url: row.url,
    signatureSecret: row.signatureSecret,
  };
}

const inScope = (ctx: ScopeCtx) => and(eq(webhooks.projectId, ctx.projectId), eq(webhooks.environment, ctx.environment));

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== "";
  } catch {
    return false;
  }
}

// Names are not resolved here (they may point elsewhere by delivery time): delivery.ts checks the
// address it actually connects to. This only refuses what is internal on its face.
function urlProblem(value: string, allowPrivate: boolean): Problem | null {
  if (!isHttpUrl(value)) return invalidProblem("url", "This attribute must be an http or https URL.");
  const why = allowPrivate ? null : internalHostName(new URL(value).hostname);
  return why ? invalidProblem("url", `This attribute must not point to an internal address (${why}).`) : null;
}

/** Every rule a webhook creation breaks, one problem each. */
function creationProblems(ctx: ScopeCtx, input: { events?: unknown; url?: unknown }): Problem[] {
  const problems: Problem[] = [];
  if (input.events === undefined) problems.push(requiredProblem("events"));
  else if (!Array.isArray(input.events)) problems.push(invalidProblem("events", "This attribute must be an array."));
  else if (input.events.length === 0) problems.push(invalidProblem("events", "This attribute must list at least one event."));
  else {
    input.events.forEach((e, i) => {
      if (!WEBHOOK_EVENTS.includes(e as WebhookEvent)) {
        problems.push(invalidProblem(`events[${i}]`, `This attribute must be one of: ${WEBHOOK_EVENTS.join(", ")}.`));
      }
    });
  }
  if (input.url === undefined) problems.push(requiredProblem("url"));
  else if (typeof input.url !== "string") problems.push(invalidProblem("url", "This attribute must be an http or https URL."));
  else {
    const problem = urlProblem(input.url, ctx.config.webhookAllowPrivate);
    if (problem) problems.push(problem);
  }
  const existing = ctx.db.select({ n: count() }).from(webhooks).where(inScope(ctx)).get()!.n;
  if (existing >= ctx.config.webhookLimit) {
    problems.push({ kind: "webhook-limit-reached", title: "Your account has reached the webhook urls limit.", name: "url" });
  }
  return problems;
}

/** Subscribes a URL to events; the answer carries the signature secret used to sign deliveries. */
export function createWebhook(ctx: ScopeCtx, input: { events?: unknown; url?: unknown }) {
  const problems = creationProblems(ctx, input);
  if (problems.length) throw invalidAttributes(problems);
  const row: WebhookRow = {
    id: newId("webhook_"),
    projectId: ctx.projectId,
    environment: ctx.environment,
    url: input.url as string,
    events: JSON.stringify([...new Set(input.events as string[])]),
    signatureSecret: `sig_sec_${randomBase62(22)}`,
    createdAt: atom(ctx.clock.now()),
  };
  ctx.db.insert(webhooks).values(row).run();
  return webhookBody(row);
}


/** Lists this scope's webhooks, oldest first, optionally only those subscribed to one event. */
export function listWebhooks(ctx: ScopeCtx, input: { url: string; page: Page; events?: string }) {
  if (input.events !== undefined && !WEBHOOK_EVENTS.includes(input.events as WebhookEvent)) {
    throw invalidAttributes([invalidProblem("events", `This attribute must be one of: ${WEBHOOK_EVENTS.join(", ")}.`)]);
  }
  // Event names contain no LIKE wildcards, and each is stored quoted inside the JSON array.
  const where = input.events ? and(inScope(ctx), like(webhooks.events, `%"${input.events}"%`)) : inScope(ctx);
  const total = ctx.db.select({ n: count() }).from(webhooks).where(where).get()!.n;
  const rows = ctx.db.select().from(webhooks).where(where).orderBy(sql`rowid`)
    .limit(input.page.pageSize).offset(offsetOf(input.page)).all();
  return paginate(input.url, input.page, total, rows.map(webhookBody));
}

// The hottest read of the API (GET /webhooks/{id}), so plain SQL on the same connection: drizzle's
// placeholder filling and row mapping cost more than SQLite's own lookup (~3 µs of ~5). The aliases
// give the row the schema's property names.
const webhookInScope = preparedQuery((db) =>
  db.$client.prepare<[string, string, string], WebhookRow>(
    `SELECT id, project_id AS projectId, environment, url, events, signature_secret AS signatureSecret, created_at AS createdAt
     FROM webhooks WHERE id = ? AND project_id = ? AND environment = ?`,
  ));

function findWebhook(ctx: ScopeCtx, webhookId: string): WebhookRow {
  const row = webhookInScope(ctx).get(webhookId, ctx.projectId, ctx.environment);
  if (!row) throw notFound("webhookId");
  return row;
}

/** Reads one webhook of this scope (another project's id is a 404). */
export function getWebhook(ctx: ScopeCtx, webhookId: string) {
  return webhookBody(findWebhook(ctx, webhookId));
}

/** Deletes a webhook; its pending deliveries are dropped with it. */
export function deleteWebhook(ctx: ScopeCtx, webhookId: string): void {
  findWebhook(ctx, webhookId);
  ctx.db.delete(webhooks).where(eq(webhooks.id, webhookId)).run();
}
