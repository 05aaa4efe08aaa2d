import { Elysia, t } from "elysia";
import type { AppContext } from "../context";
import type { AdminGuard } from "../http/admin-auth";
import { adminErrors, adminListSchema, adminPageQuery } from "../http/admin-list";
import { countProjects, listProjects } from "./list";
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

const name = t.String({ minLength: 1, maxLength: 255, error: "This attribute must be a non-empty string of at most 255 characters." });
const params = t.Object({ project_id: t.String() });

/** Admin API /projects. */
export function projectRoutes(app: AppContext, admin: AdminGuard) {
  return new Elysia({ prefix: "/projects", normalize: false })
    .use(admin)
    .get("/count", ({ query }) => countProjects(app, query), {
      query: t.Object({ name: t.Optional(t.String()) }, { additionalProperties: false }),
      response: { 200: t.Object({ count: t.Integer() }), ...adminErrors },
      detail: { summary: "Count projects (optionally those whose name contains `name`)", tags: ["Projects"] },
    })
    .get("", ({ query, request }) => listProjects(app, request.url, query), {
      query: t.Object({ name: t.Optional(t.String()), sort_by: t.Optional(t.String()), ...adminPageQuery }, { additionalProperties: false }),
      response: { 200: adminListSchema(projectBody), ...adminErrors },
      detail: { summary: "List projects: name (contains), sort_by=created_at|name, sort_order, page, page_size (1–100, default 20)", tags: ["Projects"] },
    })
    .post("", ({ body, set }) => {
      set.status = 201;
      return createProject(app, body);
    }, {
      body: t.Object({ name, region: t.Optional(t.Literal("eu-central-1")) }, { additionalProperties: false }),
      response: { 201: projectBody, ...adminErrors },
      detail: { summary: "Create a project (sandbox-only until production is enabled)", tags: ["Projects"] },
    })
    .get("/:project_id", ({ params }) => getProject(app, params.project_id), {
      params,
      response: { 200: projectBody, ...adminErrors },
      detail: { summary: "Get a project", tags: ["Projects"] },
    })
    .patch("/:project_id", ({ params, body }) => updateProject(app, params.project_id, body), {
      params,
      body: t.Object({
        name: t.Optional(name),
        deletes_at: t.Optional(t.Union([t.Literal("next_cycle"), t.Null()], { error: "This attribute must be \"next_cycle\" or null." })),
        production_enabled: t.Optional(t.Boolean()),
      }, { additionalProperties: false }),
      response: { 200: projectBody, ...adminErrors },
      detail: {
        summary: "Rename a project, schedule its deletion (deletes_at: \"next_cycle\" = the first day of next month; null cancels) or switch production on and off",
        tags: ["Projects"],
      },
    });
}
