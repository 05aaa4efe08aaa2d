// Prepared statements: built once per database, never shared between databases.
import { expect, test } from "bun:test";
import { eq, sql } from "drizzle-orm";
import { openDatabase } from "./client";
import { migrate } from "./migrate";
import { PreparedStatements, preparedQuery } from "./prepared";
import { settings } from "./schema";

let builds = 0;
const settingByKey = preparedQuery((db) => {
  builds++;
  return db.select().from(settings).where(eq(settings.key, sql.placeholder("key"))).prepare();
});

function database(value: string) {
  const { sqlite, db } = openDatabase(":memory:");
  migrate(sqlite);
  db.insert(settings).values({ key: "k", value }).run();
  return { sqlite, ctx: { prepared: new PreparedStatements(db) } };
}

test("a statement is built on first use, once per database, and reads its own database", () => {
  const a = database("in a");
  const b = database("in b");
  expect(builds).toBe(0);
  expect(settingByKey(a.ctx).get({ key: "k" })?.value).toBe("in a");
  expect(settingByKey(a.ctx).get({ key: "k" })?.value).toBe("in a");
  expect(settingByKey(a.ctx)).toBe(settingByKey(a.ctx));
  expect(builds).toBe(1);
  expect(settingByKey(b.ctx).get({ key: "k" })?.value).toBe("in b");
  expect(builds).toBe(2);
  expect(settingByKey(a.ctx).get({ key: "missing" })).toBeUndefined();
  a.sqlite.close();
  b.sqlite.close();
});
