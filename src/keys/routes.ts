import { Elysia, t } from "elysia";
import type { AppContext } from "../context";
import type { AdminGuard } from "../http/admin-auth";
import { adminErrors, adminListSchema, adminPageQuery } from "../http/admin-list";
import { countApiKeys, listApiKeys } from "./list";
import { createApiKey, deleteApiKey, getApiKey, renameApiKey } from "./service";

const environment = t.Union([t.Literal("sandbox"), t.Literal("production")], { error: "This attribute must be one of: sandbox, production." });

export const apiKeyBody = t.Object({
  project_id: t.String(),
  api_key_id: t.String(),
  created_at: t.String(),
  name: t.String(),
  value: t.String(),
  environment,
});

const name = t.String({ minLength: 1, maxLength: 255, error: "This attribute must be a non-empty string of at most 255 characters." });
const projectParams = t.Object({ project_id: t.String() });
const keyParams = t.Object({ project_id: t.String(), api_key_id: t.String() });
const filters = { name: t.Optional(t.String()), value: t.Optional(t.String()), environment: t.Optional(t.String()) };

/** Admin API /projects/{project_id}/api-keys. */
export function apiKeyRoutes(app: AppContext, admin: AdminGuard) {
  return new Elysia({ prefix: "/projects/:project_id/api-keys", normalize: false })
    .use(admin)
    .get("/count", ({ params, query }) => countApiKeys(app, params.project_id, query), {
      params: projectParams,
      query: t.Object(filters, { additionalProperties: false }),
      response: { 200: t.Object({ count: t.Integer() }), ...adminErrors },
      detail: { summary: "Count a project's API keys (name contains, value = masked form or prefix, environment)", tags: ["API keys"] },
    })
    .get("", ({ params, query, request }) => listApiKeys(app, params.project_id, request.url, query), {
      params: projectParams,
      query: t.Object({ ...filters, sort_by: t.Optional(t.String()), ...adminPageQuery }, { additionalProperties: false }),
      response: { 200: adminListSchema(apiKeyBody), ...adminErrors },
      detail: { summary: "List a project's API keys, values masked: name, value, environment, sort_by=created_at|name|value, sort_order, page, page_size", tags: ["API keys"] },
    })
    .post("", ({ params, body, set }) => {
      set.status = 201;
      return createApiKey(app, params.project_id, body);
    }, {
      params: projectParams,
      body: t.Object({ name, environment: t.Optional(environment) }, { additionalProperties: false }),
      response: { 201: apiKeyBody, ...adminErrors },
      detail: { summary: "Create an API key for one environment (default production); the full value is shown only here", tags: ["API keys"] },
    })
    .get("/:api_key_id", ({ params }) => getApiKey(app, params.project_id, params.api_key_id), {
      params: keyParams,
      response: { 200: apiKeyBody, ...adminErrors },
      detail: { summary: "Get an API key (value masked)", tags: ["API keys"] },
    })
    .patch("/:api_key_id", ({ params, body }) => renameApiKey(app, params.project_id, params.api_key_id, body), {
      params: keyParams,
      body: t.Object({ name }, { additionalProperties: false }),
      response: { 200: apiKeyBody, ...adminErrors },
      detail: { summary: "Rename an API key", tags: ["API keys"] },
    })
    .delete("/:api_key_id", ({ params, set }) => {
      deleteApiKey(app, params.project_id, params.api_key_id);
      set.status = 204;
    }, {
      params: keyParams,
      response: { 204: t.Void(), ...adminErrors },
      detail: { summary: "Delete (revoke) an API key: it and its tokens stop working at once", tags: ["API keys"] },
    });
}
