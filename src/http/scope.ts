import { Elysia } from "elysia";
import { authenticate } from "../auth/service";
import type { Environment } from "../config";
import type { AppContext } from "../context";

/** Authenticates main-API requests of one listener and hands routes the request's `scope`. */
export function requireScope(app: AppContext, environment: Environment) {
  return new Elysia().resolve({ as: "scoped" }, ({ headers }) => ({
    scope: authenticate(app, environment, headers.authorization),
  }));
}

export type ScopePlugin = ReturnType<typeof requireScope>;
