import Database from "better-sqlite3";
import { drizzle, type BetterSQLite3Database } from "drizzle-orm/better-sqlite3";
import { FOLD_SQL_FUNCTION, foldText } from "./fold";
import * as schema from "./schema";

/** Drizzle over the one connection; `$client` is that better-sqlite3 connection, for the rare hand-written hot query. */
export type Db = BetterSQLite3Database<typeof schema> & { $client: Database.Database };

/** The handle a `db.transaction` callback gets. */
export type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];

export interface Database_ {
  sqlite: Database.Database;
  db: Db;
}

/** Opens the SQLite file with WAL, a busy timeout, foreign keys and the `vh_fold` function; `:memory:` for tests. */
export function openDatabase(file: string): Database_ {
  // One connection per process: better-sqlite3 is synchronous, so it is the single writer.
  const sqlite = new Database(file, { timeout: 5000 });
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("synchronous = NORMAL");
  sqlite.pragma("foreign_keys = ON");
  sqlite.pragma("busy_timeout = 5000");
  // After a checkpoint the WAL file is cut back to this size: one big transaction (a purge, a
  // project's deletion) would otherwise leave it at its largest for good.
  sqlite.pragma("journal_size_limit = 67108864");
  // Case- and accent-blind matching and sorting in SQL (video titles, search), like /tags in code.
  sqlite.function(FOLD_SQL_FUNCTION, { deterministic: true }, (text: unknown) => (typeof text === "string" ? foldText(text) : text));
  return { sqlite, db: drizzle(sqlite, { schema }) };
}
