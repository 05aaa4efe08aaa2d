import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { projects } from "./projects";

/** API keys: only the SHA-256 of the secret is kept, plus a masked form for display. */
export const apiKeys = sqliteTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    projectId: text("project_id").notNull().references(() => projects.id, { onDelete: "cascade" }),
    environment: text("environment", { enum: ["sandbox", "production"] }).notNull(),
    name: text("name").notNull(),
    secretHash: text("secret_hash").notNull().unique(),
    masked: text("masked").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [index("api_keys_project").on(t.projectId)],
);

/** Bearer access and refresh tokens minted by /auth; hashed like keys. */
export const authTokens = sqliteTable(
  "auth_tokens",
  {
    hash: text("hash").primaryKey(),
    kind: text("kind", { enum: ["access", "refresh"] }).notNull(),
    apiKeyId: text("api_key_id").notNull().references(() => apiKeys.id, { onDelete: "cascade" }),
    /** Access and refresh tokens minted together share a pair id, so refresh revokes both. */
    pairId: text("pair_id").notNull(),
    expiresAt: integer("expires_at").notNull(),
  },
  (t) => [index("auth_tokens_pair").on(t.pairId), index("auth_tokens_key").on(t.apiKeyId)],
);
