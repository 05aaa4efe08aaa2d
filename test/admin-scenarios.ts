// Table-driven admin API scenarios: each row is a request and what must come back.
import { expect, test } from "bun:test";
import { basic, type TestAppliance } from "./helpers";

export interface Scenario {
  name: string;
  method: string;
  /** A path, or a function of the suite's state (ids are made in beforeAll). */
  path: string | (() => string);
  body?: unknown;
  /** Raw body text instead of JSON (for unparseable payloads). */
  raw?: string;
  /** Authorization header: "admin" (default), "none", or a literal header value. */
  auth?: "admin" | "none" | (() => string);
  status: number;
  /** Partial match of the JSON answer. */
  match?: Record<string, unknown> | (() => Record<string, unknown>);
  /** Any further check of the parsed answer. */
  check?: (body: any, res: Response) => void;
}

/** Sends a scenario's request to the admin listener. */
export async function send(app: TestAppliance, s: Pick<Scenario, "method" | "path" | "body" | "raw" | "auth">): Promise<Response> {
  const headers: Record<string, string> = {};
  const auth = s.auth ?? "admin";
  if (auth === "admin") headers.authorization = basic(app.adminKey);
  else if (typeof auth === "function") headers.authorization = auth();
  if (s.body !== undefined || s.raw !== undefined) headers["content-type"] = "application/json";
  const path = typeof s.path === "function" ? s.path() : s.path;
  return fetch(app.urls.admin + path, { method: s.method, headers, body: s.raw ?? (s.body !== undefined ? JSON.stringify(s.body) : undefined) });
}

/** One bun test per row. The answer is always `application/json` (or empty for 204). */
export function scenarios(appOf: () => TestAppliance, rows: Scenario[]): void {
  for (const row of rows) {
    test(`${row.method} ${typeof row.path === "string" ? row.path : "…"}: ${row.name} → ${row.status}`, async () => {
      const res = await send(appOf(), row);
      const text = await res.text();
      expect({ status: res.status, text: text.slice(0, 300) }).toMatchObject({ status: row.status });
      if (row.status === 204) {
        expect(text).toBe("");
        return;
      }
      expect(res.headers.get("content-type")).toBe("application/json");
      const body = JSON.parse(text);
      if (row.match) expect(body).toMatchObject(typeof row.match === "function" ? row.match() : row.match);
      row.check?.(body, res);
    });
  }
}

/** What an error body must look like: its kind at the end of `type`, and the admin 400 fields. */
export function problem(status: number, kind: string, extra: Record<string, unknown> = {}) {
  return {
    type: expect.stringMatching(new RegExp(`/reference/${kind}$`)),
    status,
    ...(status === 400 ? { total_problems: expect.any(Number), constraint: expect.any(String) } : {}),
    ...extra,
  };
}
