// The one rule for whether a project's credentials still work, whatever the credential: API keys
// and their tokens (auth/service.ts), upload tokens (upload-tokens/service.ts) and stream keys
// (live/runtime.ts) all ask here, so a project switched to sandbox-only or being deleted stops
// accepting every one of them at the same moment.
import { eq, sql } from "drizzle-orm";
import type { Environment } from "../config";
import type { AppContext } from "../context";
import { preparedQuery } from "../db/prepared";
import { projects } from "../db/schema";

/** Why a project's credentials are refused: it is deleted (or being deleted), or production is off for a production credential. */
export type ProjectRefusal = "deleted" | "production-disabled";

const projectQuery = preparedQuery((db) =>
  db.select({ deleted: projects.deleted, productionEnabled: projects.productionEnabled }).from(projects)
    .where(eq(projects.id, sql.placeholder("id"))).prepare());

/** Why credentials of `environment` in project `projectId` may not be used now, or null when they may (cached; see KeyCache.invalidateProject). */
export function projectRefusal(app: AppContext, projectId: string, environment: Environment): ProjectRefusal | null {
  const project = app.keyCache.project(projectId, () => {
    const row = projectQuery(app).get({ id: projectId });
    return { exists: !!row && !row.deleted, productionEnabled: !!row?.productionEnabled };
  });
  if (!project.exists) return "deleted";
  if (environment === "production" && !project.productionEnabled) return "production-disabled";
  return null;
}
