import { eq } from "drizzle-orm";
import { atom } from "../clock";
import type { AppContext } from "../context";
import { projects } from "../db/schema";
import { notFound } from "../http/errors";
import { newId } from "../ids";

export type ProjectRow = typeof projects.$inferSelect;

/** The admin API's snake_case project body; `production_enabled` is Vidhost's extension. */
export function projectBody(row: ProjectRow) {
  return {
    project_id: row.id,
    created_at: row.createdAt,
    name: row.name,
    deletes_at: row.deletesAt,
    region: row.region,
    deleted: row.deleted,
    production_enabled: row.productionEnabled,
  };
}

/** The project row, or 404 naming project_id (deleted projects are gone for the API). */
export function getProjectRow(app: AppContext, projectId: string): ProjectRow {
  const row = app.db.select().from(projects).where(eq(projects.id, projectId)).get();
  if (!row || row.deleted) throw notFound("project_id");
  return row;
}

/** Creates a sandbox-only project. */
export function createProject(app: AppContext, input: { name: string }) {
  const row = { id: newId("project_"), name: input.name, createdAt: atom(app.clock.now()) };
  app.db.insert(projects).values(row).run();
  return projectBody(getProjectRow(app, row.id));
}

/** Reads one project. */
export function getProject(app: AppContext, projectId: string) {
  return projectBody(getProjectRow(app, projectId));
}

/** Midnight UTC on the first day of the month after `now`: when a "next_cycle" deletion happens. */
export function nextCycle(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
}

export interface ProjectUpdate {
  name?: string;
  /** "next_cycle" schedules the deletion; null cancels a scheduled one (Vidhost's extension). */
  deletes_at?: "next_cycle" | null;
  production_enabled?: boolean;
}

/**
 * Renames a project, schedules or cancels its deletion, and/or switches its mode. A mode change
 * takes effect at once (the key cache forgets the project; switching production off also completes
 * its production broadcasts); the deletion is carried out by the hourly schedule (projects/deletion.ts).
 */
export function updateProject(app: AppContext, projectId: string, input: ProjectUpdate) {
  const before = getProjectRow(app, projectId);
  const changes: Partial<ProjectRow> = {};
  if (input.name !== undefined) changes.name = input.name;
  if (input.production_enabled !== undefined) changes.productionEnabled = input.production_enabled;
  if (input.deletes_at !== undefined) changes.deletesAt = input.deletes_at === null ? null : atom(nextCycle(app.clock.now()));
  if (Object.keys(changes).length) {
    app.db.update(projects).set(changes).where(eq(projects.id, projectId)).run();
    app.keyCache.invalidateProject(projectId);
    // New publishes are refused from now on (auth/project-state.ts); running ones end too.
    if (before.productionEnabled && input.production_enabled === false) app.live.completeAll(projectId, "production");
  }
  return projectBody(getProjectRow(app, projectId));
}
