import { Elysia } from "elysia";
import type { ApiGate } from "./api-gate";

/** Hands routes the request's `scope`, authenticated once per request by the listener's gate (401 when it failed). */
export function requireScope(gate: ApiGate) {
  return new Elysia().resolve({ as: "scoped" }, ({ request }) => ({ scope: gate.scope(request) }));
}

export type ScopePlugin = ReturnType<typeof requireScope>;
