// How the database file is opened.
import { expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "./client";

test("a file database is opened in WAL mode with a busy timeout and a bound on the WAL file's size", () => {
  const dir = mkdtempSync(join(tmpdir(), "vidhost-db-"));
  const { sqlite } = openDatabase(join(dir, "vidhost.db"));
  try {
    expect([sqlite.pragma("journal_mode", { simple: true }), sqlite.pragma("busy_timeout", { simple: true }), sqlite.pragma("journal_size_limit", { simple: true })])
      .toEqual(["wal", 5000, 64 * 1024 * 1024]);
  } finally {
    sqlite.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
