import { Elysia, t } from "elysia";
import { apiErrors } from "../http/schemas";
import { pageQuery, paginationSchema, parsePage } from "../http/pagination";
import type { ScopePlugin } from "../http/scope";
import { createWebhook, deleteWebhook, getWebhook, listWebhooks } from "./service";

const webhook = t.Object({
  webhookId: t.String(),
  createdAt: t.String(),
  events: t.Array(t.String()),
  url: t.String(),
  signatureSecret: t.String(),
});

const params = t.Object({ webhookId: t.String() });

/** Main API /webhooks. */
export function webhookRoutes(scoped: ScopePlugin) {
  return new Elysia({ prefix: "/webhooks", normalize: false })
    .use(scoped)
    .get("", ({ scope, query, request }) => listWebhooks(scope, { url: request.url, page: parsePage(query), events: query.events }), {
      query: t.Object({ events: t.Optional(t.String()), ...pageQuery }, { additionalProperties: false }),
      response: { 200: t.Object({ data: t.Array(webhook), pagination: paginationSchema }), ...apiErrors },
      detail: { summary: "List webhooks", tags: ["Webhooks"] },
    })
    .post("", ({ scope, body, set }) => {
      set.status = 201;
      return createWebhook(scope, body);
    }, {
      // Checked by the service so every broken rule is reported at once, as api.video does.
      body: t.Object({ events: t.Optional(t.Unknown()), url: t.Optional(t.Unknown()) }, { additionalProperties: false }),
      response: { 201: webhook, ...apiErrors },
      detail: { summary: "Subscribe a URL to events", tags: ["Webhooks"] },
    })
    .get("/:webhookId", ({ scope, params }) => getWebhook(scope, params.webhookId), {
      params,
      response: { 200: webhook, ...apiErrors },
      detail: { summary: "Get a webhook", tags: ["Webhooks"] },
    })
    .delete("/:webhookId", ({ scope, params, set }) => {
      deleteWebhook(scope, params.webhookId);
      set.status = 204;
    }, {
      params,
      response: { 204: t.Void(), ...apiErrors },
      detail: { summary: "Delete a webhook", tags: ["Webhooks"] },
    });
}
