import { Elysia, t } from "elysia";
import type { AppContext } from "../context";
import type { AdminGuard } from "../http/admin-auth";
import { errorBody } from "../http/schemas";
import { createProject, getProject, updateProject } from "./service";

export const projectBody = t.Object({
  project_id: t.String(),
  created_at: t.String(),
  name: t.String(),
  deletes_at: t.Nullable(t.String()),
  region: t.String(),
  deleted: t.Boolean(),
  production_enabled: t.Boolean(),
});

const errors = { 400: errorBody, 401: errorBody, 404: errorBody, 429: errorBody };
const name = t.String({ minLength: 1, maxLength: 255, error: "This attribute must be a non-empty string of at most 255 characters." });

/** Admin API /projects. */
export function projectRoutes(app: AppContext, admin: AdminGuard) {
  return new Elysia({ prefix: "/projects", normalize: false })
    .use(admin)
    .post("", ({ body, set }) => {
      set.status = 201;
      return createProject(app, body);
    }, {
      body: t.Object({ name, region: t.Optional(t.Literal("eu-central-1")) }),
      response: { 201: projectBody, ...errors },
      detail: { summary: "Create a project (sandbox-only until production is enabled)", tags: ["Projects"] },
    })
    .get("/:project_id", ({ params }) => getProject(app, params.project_id), {
      params: t.Object({ project_id: t.String() }),
      response: { 200: projectBody, ...errors },
      detail: { summary: "Get a project", tags: ["Projects"] },
    })
    .patch("/:project_id", ({ params, body }) => updateProject(app, params.project_id, body), {
      params: t.Object({ project_id: t.String() }),
      body: t.Object({ name: t.Optional(name), production_enabled: t.Optional(t.Boolean()) }),
      response: { 200: projectBody, ...errors },
      detail: { summary: "Rename a project or switch it between sandbox-only and production enabled", tags: ["Projects"] },
    });
}
