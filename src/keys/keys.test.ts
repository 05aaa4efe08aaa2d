// Admin API /projects/{project_id}/api-keys: scenario tables for count, list (filters name, value
// and environment, sorting, page edges), create, read, rename, delete, errors; a deleted key and its
// tokens stop working at once.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { problem, scenarios } from "../../test/admin-scenarios";
import { basic, startTestAppliance, type TestAppliance } from "../../test/helpers";

let app: TestAppliance;
const now = { ms: Date.parse("2026-11-21T10:00:00Z") };
const clock = { now: () => new Date(now.ms) };
let projectId = "";
let otherProjectId = "";
let otherKeyId = "";
const keys: Record<string, { api_key_id: string; value: string; environment: string }> = {};

// name → environment, created one second apart.
const KEYS: [string, "sandbox" | "production"][] = [["ci", "production"], ["Staging", "sandbox"], ["mobile app", "production"], ["CI nightly", "sandbox"]];

beforeAll(async () => {
  app = await startTestAppliance({ clock, env: { VIDHOST_ADMIN_RATE_LIMIT: "100000" } });
  const project = await app.admin("POST", "/projects", { name: "Keys" });
  projectId = ((await project.json()) as { project_id: string }).project_id;
  await app.admin("PATCH", `/projects/${projectId}`, { production_enabled: true });
  for (const [name, environment] of KEYS) {
    now.ms += 1000;
    keys[name] = (await (await app.admin("POST", `/projects/${projectId}/api-keys`, { name, environment })).json()) as never;
  }
  otherProjectId = app.projectId;
  const other = await app.admin("GET", `/projects/${otherProjectId}/api-keys`);
  otherKeyId = ((await other.json()) as { items: { api_key_id: string }[] }).items[0].api_key_id;
});
afterAll(() => app.close());

const base = () => `/projects/${projectId}/api-keys`;
const names = (b: { items: { name: string }[] }) => b.items.map((k) => k.name);
const masked = (value: string) => `${value.slice(0, 4)}${"*".repeat(value.length - 4)}`;

describe("listing and counting", () => {
  scenarios(() => app, [
    { name: "every key", method: "GET", path: () => `${base()}/count`, status: 200, match: { count: 4 } },
    { name: "name contains, any case", method: "GET", path: () => `${base()}/count?name=ci`, status: 200, match: { count: 2 } },
    { name: "environment", method: "GET", path: () => `${base()}/count?environment=sandbox`, status: 200, match: { count: 2 } },
    { name: "value: the masked form", method: "GET", path: () => `${base()}/count?value=${encodeURIComponent(masked(keys.ci.value))}`, status: 200, match: { count: 1 } },
    { name: "value: the full key", method: "GET", path: () => `${base()}/count?value=${keys.Staging.value}`, status: 200, match: { count: 1 } },
    { name: "value: longer than the shown prefix but not the key", method: "GET", path: () => `${base()}/count?value=${keys.Staging.value.slice(0, 10)}`, status: 200, match: { count: 0 } },
    { name: "bad environment", method: "GET", path: () => `${base()}/count?environment=staging`, status: 400, match: problem(400, "invalid-attribute", { name: "environment" }) },
    { name: "unknown project", method: "GET", path: "/projects/project_000000000000000000000/api-keys/count", status: 404, match: problem(404, "resource-not-found", { name: "project_id" }) },
    {
      name: "values are masked, oldest first", method: "GET", path: base, status: 200,
      check: (b) => {
        expect(names(b)).toEqual(KEYS.map(([n]) => n));
        expect(b.items[0]).toEqual({
          project_id: projectId, api_key_id: keys.ci.api_key_id, created_at: "2026-11-21T10:00:01+00:00", name: "ci",
          value: masked(keys.ci.value), environment: "production",
        });
        expect(JSON.stringify(b)).not.toContain(keys.ci.value);
        expect(b.pagination).toEqual({ page: 1, page_size: 20, item_count: 4 });
      },
    },
    {
      name: "value prefix filter", method: "GET", path: () => `${base()}?value=${keys["mobile app"].value.slice(0, 3)}`, status: 200,
      check: (b) => expect(b.items.map((k: { api_key_id: string }) => k.api_key_id)).toContain(keys["mobile app"].api_key_id),
    },
    { name: "environment filter", method: "GET", path: () => `${base()}?environment=production`, status: 200, check: (b) => expect(names(b)).toEqual(["ci", "mobile app"]) },
    { name: "sort by name", method: "GET", path: () => `${base()}?sort_by=name`, status: 200, check: (b) => expect(names(b)).toEqual(["CI nightly", "Staging", "ci", "mobile app"]) },
    { name: "sort by name descending", method: "GET", path: () => `${base()}?sort_by=name&sort_order=desc`, status: 200, check: (b) => expect(names(b)).toEqual(["mobile app", "ci", "Staging", "CI nightly"]) },
    {
      name: "sort by value", method: "GET", path: () => `${base()}?sort_by=value`, status: 200,
      check: (b) => {
        const values = b.items.map((k: { value: string }) => k.value);
        expect(values).toEqual([...values].sort());
      },
    },
    { name: "newest first", method: "GET", path: () => `${base()}?sort_order=desc&page_size=1`, status: 200, check: (b) => expect(names(b)).toEqual(["CI nightly"]) },
    {
      name: "page 2 of 4, filters kept in the links", method: "GET", path: () => `${base()}?name=i&page=2&page_size=1`, status: 200,
      check: (b) => {
        expect(names(b)).toEqual(["Staging"]);
        expect(b.links).toEqual([
          { rel: "previous", href: `${base()}?name=i&page=1&page_size=1` },
          { rel: "self", href: `${base()}?name=i&page=2&page_size=1` },
          { rel: "next", href: `${base()}?name=i&page=3&page_size=1` },
        ]);
      },
    },
    { name: "last page", method: "GET", path: () => `${base()}?page=2&page_size=3`, status: 200, check: (b) => { expect(names(b)).toEqual(["CI nightly"]); expect(b.links.map((l: { rel: string }) => l.rel)).toEqual(["previous", "self"]); } },
    { name: "past the end", method: "GET", path: () => `${base()}?page=3&page_size=3`, status: 200, match: { items: [], pagination: { page: 3, page_size: 3, item_count: 0 } } },
    { name: "page_size 0", method: "GET", path: () => `${base()}?page_size=0`, status: 400, match: problem(400, "invalid-attribute", { name: "page_size" }) },
    { name: "page_size 101", method: "GET", path: () => `${base()}?page_size=101`, status: 400, match: problem(400, "invalid-attribute", { name: "page_size" }) },
    { name: "sort_by created", method: "GET", path: () => `${base()}?sort_by=created`, status: 400, match: problem(400, "invalid-attribute", { name: "sort_by", detail: "This attribute must be one of: created_at, name, value." }) },
    { name: "two problems", method: "GET", path: () => `${base()}?sort_order=sideways&environment=dev`, status: 400, match: problem(400, "invalid-attribute", { total_problems: 2 }) },
    { name: "no credentials", method: "GET", path: base, auth: "none", status: 401, match: problem(401, "authentication-invalid-api-key") },
    { name: "an API key is not the admin key", method: "GET", path: base, auth: () => basic(keys.ci.value), status: 401 },
  ]);
});

describe("create, read, rename", () => {
  scenarios(() => app, [
    {
      name: "production by default, full value once", method: "POST", path: base, body: { name: "new" }, status: 201,
      match: { name: "new", environment: "production" },
      check: (b) => {
        expect(b.api_key_id).toMatch(/^api_key_[0-9A-Za-z]{22}$/);
        expect(b.value).toMatch(/^[0-9A-Za-z]{43}$/);
      },
    },
    { name: "sandbox", method: "POST", path: base, body: { name: "sb", environment: "sandbox" }, status: 201, match: { environment: "sandbox" } },
    { name: "name missing", method: "POST", path: base, body: { environment: "sandbox" }, status: 400, match: problem(400, "attribute-required", { name: "name" }) },
    { name: "bad environment", method: "POST", path: base, body: { name: "x", environment: "staging" }, status: 400, match: problem(400, "invalid-attribute", { name: "environment", detail: "This attribute must be one of: sandbox, production." }) },
    { name: "unknown project", method: "POST", path: "/projects/project_000000000000000000000/api-keys", body: { name: "x" }, status: 404, match: problem(404, "resource-not-found", { name: "project_id" }) },
    { name: "reads one, masked", method: "GET", path: () => `${base()}/${keys.Staging.api_key_id}`, status: 200, match: () => ({ name: "Staging", value: masked(keys.Staging.value), environment: "sandbox" }) },
    { name: "unknown key", method: "GET", path: () => `${base()}/api_key_000000000000000000000`, status: 404, match: problem(404, "resource-not-found", { name: "api_key_id" }) },
    { name: "another project's key", method: "GET", path: () => `${base()}/${otherKeyId}`, status: 404, match: problem(404, "resource-not-found", { name: "api_key_id" }) },
    { name: "renames", method: "PATCH", path: () => `${base()}/${keys.Staging.api_key_id}`, body: { name: "Staging 2" }, status: 200, match: () => ({ name: "Staging 2", value: masked(keys.Staging.value) }) },
    { name: "name required", method: "PATCH", path: () => `${base()}/${keys.Staging.api_key_id}`, body: {}, status: 400, match: problem(400, "attribute-required", { name: "name" }) },
    { name: "the environment cannot change", method: "PATCH", path: () => `${base()}/${keys.Staging.api_key_id}`, body: { name: "x", environment: "production" }, status: 400, match: problem(400, "invalid-attribute", { name: "environment" }) },
    { name: "rename another project's key", method: "PATCH", path: () => `${base()}/${otherKeyId}`, body: { name: "x" }, status: 404 },
    { name: "delete another project's key", method: "DELETE", path: () => `${base()}/${otherKeyId}`, status: 404 },
    { name: "no credentials", method: "DELETE", path: () => `${base()}/${keys.Staging.api_key_id}`, auth: "none", status: 401 },
  ]);

  test("a renamed key keeps working", async () => {
    expect((await app.api(keys.Staging.value, "GET", "/videos")).status).toBe(200);
  });
});

describe("DELETE", () => {
  test("a deleted key, and the tokens it minted, stop working at once", async () => {
    const key = keys["CI nightly"];
    // Warm the key cache and mint a token pair.
    expect((await app.api(key.value, "GET", "/videos")).status).toBe(200);
    const tokens = (await (await fetch(`${app.urls.sandbox}/auth/api-key`, {
      method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ apiKey: key.value }),
    })).json()) as { access_token: string; refresh_token: string };
    expect((await fetch(`${app.urls.sandbox}/videos`, { headers: { authorization: `Bearer ${tokens.access_token}` } })).status).toBe(200);

    const res = await app.admin("DELETE", `/projects/${projectId}/api-keys/${key.api_key_id}`);
    expect(res.status).toBe(204);
    expect(await res.text()).toBe("");

    expect((await app.api(key.value, "GET", "/videos")).status).toBe(401);
    expect((await fetch(`${app.urls.sandbox}/videos`, { headers: { authorization: `Bearer ${tokens.access_token}` } })).status).toBe(401);
    const refresh = await fetch(`${app.urls.sandbox}/auth/refresh`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ refreshToken: tokens.refresh_token }) });
    expect(refresh.status).toBe(400);
    expect((await app.admin("GET", `/projects/${projectId}/api-keys/${key.api_key_id}`)).status).toBe(404);
    expect((await app.admin("DELETE", `/projects/${projectId}/api-keys/${key.api_key_id}`)).status).toBe(404);
    // The other keys are untouched.
    expect((await app.api(keys.Staging.value, "GET", "/videos")).status).toBe(200);
  });
});
