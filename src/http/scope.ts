import { Elysia } from "elysia";
import { authenticate } from "../auth/service";
import type { Environment } from "../config";
import type { AppContext } from "../context";

/** Authenticates main-API requests of one listener and hands routes the request's `scope`. */
export function requireScope(app: AppContext, environment: Environment) {
  // Reads the one header it needs: asking Elysia for `headers` would copy them all on every request.
  return new Elysia().resolve({ as: "scoped" }, ({ request }) => ({
    scope: authenticate(app, environment, request.headers.get("authorization") ?? undefined),
  }));
}

export type ScopePlugin = ReturnType<typeof requireScope>;
