// Auth matrix: each credential form on each listener, token expiry and refresh, project isolation.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { basic, startTestAppliance, type TestAppliance } from "./helpers";

let app: TestAppliance;
let keys: { projectId: string; sandboxKey: string; productionKey: string };
const now = { ms: Date.parse("2026-11-21T10:00:00Z") };
const clock = { now: () => new Date(now.ms) };

beforeAll(async () => {
  app = await startTestAppliance({ clock });
  keys = await app.newProject("Auth project");
});
afterAll(() => app.close());

const get = (base: string, authorization?: string) =>
  fetch(`${base}/webhooks`, { headers: authorization === undefined ? {} : { authorization } });

async function tokens(base: string, apiKey: string) {
  const res = await fetch(`${base}/auth/api-key`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ apiKey }) });
  return { status: res.status, body: (await res.json()) as Record<string, string> };
}

describe("credential forms × listeners", () => {
  const cases: [string, (s: { sandbox: string; production: string }) => string | undefined, "sandbox" | "production", number, string?][] = [
    ["sandbox key, Basic, sandbox listener", () => basic(keys.sandboxKey), "sandbox", 200],
    ["sandbox key, Basic, production listener", () => basic(keys.sandboxKey), "production", 401, "authentication-invalid-api-key"],
    ["production key, Basic, production listener", () => basic(keys.productionKey), "production", 200],
    ["production key, Basic, sandbox listener", () => basic(keys.productionKey), "sandbox", 401, "authentication-invalid-api-key"],
    ["Basic without the colon", () => `Basic ${Buffer.from(keys.sandboxKey).toString("base64")}`, "sandbox", 401, "authentication-invalid-authorization-header-value"],
    ["unknown key", () => basic("nope"), "sandbox", 401, "authentication-invalid-api-key"],
    ["no header", () => undefined, "sandbox", 401, "authentication-missing-authorization-header"],
    ["unknown scheme", () => "Digest abc def", "sandbox", 401, "authentication-invalid-authorization-header-value"],
    ["unknown bearer token", () => "Bearer nope", "sandbox", 401, "authentication-invalid-access-token"],
    ["admin key on the main API", () => basic(app.adminKey), "sandbox", 401, "authentication-invalid-api-key"],
  ];
  for (const [name, header, env, status, kind] of cases) {
    test(name, async () => {
      const res = await get(app.urls[env], header(app.urls));
      expect(res.status).toBe(status);
      expect(res.headers.get("content-type")).toBe("application/json");
      if (kind) expect(((await res.json()) as { type: string }).type).toEndWith(`/reference/${kind}`);
    });
  }

  test("bearer tokens work as `Bearer x`, `bearer x` and bare, only on their listener", async () => {
    const { status, body } = await tokens(app.urls.sandbox, keys.sandboxKey);
    expect(status).toBe(200);
    expect(body.token_type).toBe("Bearer");
    expect(body.expires_in).toBe(3600 as never);
    for (const header of [`Bearer ${body.access_token}`, `bearer ${body.access_token}`, body.access_token]) {
      expect((await get(app.urls.sandbox, header)).status).toBe(200);
    }
    expect((await get(app.urls.production, `Bearer ${body.access_token}`)).status).toBe(401);
  });

  test("/auth ignores an Authorization header and refuses bad credentials with 400", async () => {
    const res = await fetch(`${app.urls.sandbox}/auth/api-key`, {
      method: "POST", headers: { "content-type": "application/json", authorization: "Basic Og==" }, body: JSON.stringify({ apiKey: keys.sandboxKey }),
    });
    expect(res.status).toBe(200);
    const bad = await tokens(app.urls.sandbox, "not-a-key");
    expect(bad.status).toBe(400);
    expect(bad.body.type).toEndWith("/reference/authentication-invalid-user-credentials");
    expect((await tokens(app.urls.sandbox, keys.productionKey)).status).toBe(400);
    const refresh = await fetch(`${app.urls.sandbox}/auth/refresh`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ refreshToken: "nope" }) });
    expect(refresh.status).toBe(400);
  });

  test("the admin listener takes only the admin key", async () => {
    expect((await fetch(`${app.urls.admin}/projects/${keys.projectId}`, { headers: { authorization: basic(keys.sandboxKey) } })).status).toBe(401);
    expect((await fetch(`${app.urls.admin}/projects/${keys.projectId}`)).status).toBe(401);
    expect((await app.admin("GET", `/projects/${keys.projectId}`)).status).toBe(200);
  });
});

describe("tokens", () => {
  test("an access token expires after 3600 s (injected clock)", async () => {
    const { body } = await tokens(app.urls.sandbox, keys.sandboxKey);
    now.ms += 3599_000;
    expect((await get(app.urls.sandbox, `Bearer ${body.access_token}`)).status).toBe(200);
    now.ms += 2_000;
    const res = await get(app.urls.sandbox, `Bearer ${body.access_token}`);
    expect(res.status).toBe(401);
    expect(((await res.json()) as { type: string }).type).toEndWith("/authentication-invalid-access-token");
  });

  test("refresh rotates both tokens and retires the old pair", async () => {
    const first = (await tokens(app.urls.sandbox, keys.sandboxKey)).body;
    const res = await fetch(`${app.urls.sandbox}/auth/refresh`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ refreshToken: first.refresh_token }) });
    expect(res.status).toBe(200);
    const second = (await res.json()) as Record<string, string>;
    expect(second.access_token).not.toBe(first.access_token);
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect((await get(app.urls.sandbox, `Bearer ${first.access_token}`)).status).toBe(401);
    expect((await get(app.urls.sandbox, `Bearer ${second.access_token}`)).status).toBe(200);
    const again = await fetch(`${app.urls.sandbox}/auth/refresh`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ refreshToken: first.refresh_token }) });
    expect(again.status).toBe(400);
  });
});

describe("modes and isolation", () => {
  test("a production key of a sandbox-only project is refused with a reason", async () => {
    const project = (await (await app.admin("POST", "/projects", { name: "Sandbox only" })).json()) as { project_id: string; production_enabled: boolean };
    expect(project.production_enabled).toBe(false);
    const key = (await (await app.admin("POST", `/projects/${project.project_id}/api-keys`, { name: "prod", environment: "production" })).json()) as { value: string };
    const res = await get(app.urls.production, basic(key.value));
    expect(res.status).toBe(401);
    expect(((await res.json()) as { detail: string }).detail).toContain("sandbox-only");
    await app.admin("PATCH", `/projects/${project.project_id}`, { production_enabled: true });
    expect((await get(app.urls.production, basic(key.value))).status).toBe(200);
  });

  test("another project's or environment's webhook is a 404 naming the id", async () => {
    const other = await app.newProject("Other");
    const created = (await (await app.api(keys.sandboxKey, "POST", "/webhooks", { events: ["video.source.recorded"], url: "http://127.0.0.1:9/h" })).json()) as { webhookId: string };
    expect((await app.api(keys.sandboxKey, "GET", `/webhooks/${created.webhookId}`)).status).toBe(200);
    for (const [key, env] of [[other.sandboxKey, "sandbox"], [keys.productionKey, "production"]] as const) {
      const res = await app.api(key, "GET", `/webhooks/${created.webhookId}`, undefined, env);
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({ status: 404, name: "webhookId", title: "The requested resource could not be found." });
      expect((await app.api(key, "DELETE", `/webhooks/${created.webhookId}`, undefined, env)).status).toBe(404);
    }
    const list = (await (await app.api(other.sandboxKey, "GET", "/webhooks")).json()) as { data: unknown[] };
    expect(list.data).toHaveLength(0);
  });

  test("keys are stored hashed, never in clear", async () => {
    const { sqlite } = await import("../src/db/client").then((m) => m.openDatabase(`${app.dataDir}/vidhost.db`));
    const dump = JSON.stringify(sqlite.prepare("SELECT * FROM api_keys").all()) + JSON.stringify(sqlite.prepare("SELECT * FROM settings").all());
    sqlite.close();
    expect(dump).not.toContain(keys.sandboxKey);
    expect(dump).not.toContain(app.adminKey);
  });
});
