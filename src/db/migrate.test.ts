import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { migrations } from "../../migrations";
import { openDatabase } from "./client";
import { migrate } from "./migrate";

test("migrations/index.ts embeds every migration of drizzle-kit's journal, in order", () => {
  const journal = JSON.parse(readFileSync(join(import.meta.dir, "../../migrations/meta/_journal.json"), "utf8"));
  expect(migrations.map(([tag]) => tag)).toEqual(journal.entries.map((e: { tag: string }) => e.tag));
});

test("migrate applies everything once and is idempotent", () => {
  const { sqlite } = openDatabase(":memory:");
  expect(migrate(sqlite)).toHaveLength(migrations.length);
  expect(migrate(sqlite)).toEqual([]);
  const tables = (sqlite.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((t) => t.name);
  expect(tables).toEqual(expect.arrayContaining(["projects", "api_keys", "webhooks", "webhook_deliveries", "jobs"]));
  sqlite.close();
});
