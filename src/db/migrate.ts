import type Database from "better-sqlite3";
import { migrations as embedded } from "../../migrations";

/** Applies every embedded migration not yet recorded, each in its own transaction. Returns the tags applied. */
export function migrate(sqlite: Database.Database, migrations: [string, string][] = embedded): string[] {
  sqlite.exec("CREATE TABLE IF NOT EXISTS _migrations (tag TEXT PRIMARY KEY, applied_at TEXT NOT NULL)");
  const done = new Set((sqlite.prepare("SELECT tag FROM _migrations").all() as { tag: string }[]).map((r) => r.tag));
  const applied: string[] = [];
  for (const [tag, sql] of migrations) {
    if (done.has(tag)) continue;
    sqlite.transaction(() => {
      for (const statement of sql.split("--> statement-breakpoint")) {
        if (statement.trim()) sqlite.exec(statement);
      }
      sqlite.prepare("INSERT INTO _migrations (tag, applied_at) VALUES (?, ?)").run(tag, new Date().toISOString());
    })();
    applied.push(tag);
  }
  return applied;
}
