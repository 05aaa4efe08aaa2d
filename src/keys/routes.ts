import { Elysia, t } from "elysia";
import type { AppContext } from "../context";
import type { AdminGuard } from "../http/admin-auth";
import { errorBody } from "../http/schemas";
import { createApiKey } from "./service";

export const apiKeyBody = t.Object({
  project_id: t.String(),
  api_key_id: t.String(),
  created_at: t.String(),
  name: t.String(),
  value: t.String(),
  environment: t.Union([t.Literal("sandbox"), t.Literal("production")]),
});

const errors = { 400: errorBody, 401: errorBody, 404: errorBody, 429: errorBody };

/** Admin API /projects/{project_id}/api-keys. */
export function apiKeyRoutes(app: AppContext, admin: AdminGuard) {
  return new Elysia({ prefix: "/projects/:project_id/api-keys", normalize: false })
    .use(admin)
    .post("", ({ params, body, set }) => {
      set.status = 201;
      return createApiKey(app, params.project_id, body);
    }, {
      params: t.Object({ project_id: t.String() }),
      body: t.Object({
        name: t.String({ minLength: 1, maxLength: 255, error: "This attribute must be a non-empty string of at most 255 characters." }),
        environment: t.Optional(t.Union([t.Literal("sandbox"), t.Literal("production")])),
      }),
      response: { 201: apiKeyBody, ...errors },
      detail: { summary: "Create an API key for one environment; the value is shown only here", tags: ["API keys"] },
    });
}
