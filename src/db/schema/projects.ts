import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** A tenant. Everything else belongs to one project and one environment. */
export const projects = sqliteTable("projects", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  region: text("region").notNull().default("eu-central-1"),
  productionEnabled: integer("production_enabled", { mode: "boolean" }).notNull().default(false),
  deletesAt: text("deletes_at"),
  deleted: integer("deleted", { mode: "boolean" }).notNull().default(false),
  createdAt: text("created_at").notNull(),
});

/** Appliance-wide values such as the admin key's hash. */
export const settings = sqliteTable("settings", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
});
