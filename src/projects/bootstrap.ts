import { eq } from "drizzle-orm";
import type { AppContext } from "../context";
import { settings } from "../db/schema";
import { ADMIN_KEY_SETTING } from "../http/admin-auth";
import { newSecret } from "../ids";
import { createApiKey } from "../keys/service";
import { sha256Hex } from "../security";
import { createProject } from "./service";

const BOOTSTRAPPED = "bootstrapped";

export interface FirstStart {
  /** Set only when the admin key was generated now: shown once, never stored in clear. */
  adminKey?: string;
  /** Set only on the very first start. */
  defaultProject?: { projectId: string; sandboxKey: string };
}

function setSetting(app: AppContext, key: string, value: string): void {
  app.db.insert(settings).values({ key, value }).onConflictDoUpdate({ target: settings.key, set: { value } }).run();
}

/** Stores the admin key's hash (configured or generated) and, once, creates "Default project" with a sandbox key. */
export function bootstrap(app: AppContext): FirstStart {
  const result: FirstStart = {};
  const stored = app.db.select().from(settings).where(eq(settings.key, ADMIN_KEY_SETTING)).get();
  if (app.config.adminKey) setSetting(app, ADMIN_KEY_SETTING, sha256Hex(app.config.adminKey));
  else if (!stored) {
    result.adminKey = newSecret(43);
    setSetting(app, ADMIN_KEY_SETTING, sha256Hex(result.adminKey));
  }
  const done = app.db.select().from(settings).where(eq(settings.key, BOOTSTRAPPED)).get();
  if (!done) {
    app.db.transaction(() => {
      const project = createProject(app, { name: "Default project" });
      const key = createApiKey(app, project.project_id, { name: "Default sandbox key", environment: "sandbox" });
      setSetting(app, BOOTSTRAPPED, new Date().toISOString());
      result.defaultProject = { projectId: project.project_id, sandboxKey: key.value };
    });
  }
  return result;
}
