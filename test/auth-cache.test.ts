// Credentials are cached after their first use: every change must still take effect at once.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { basic, startTestAppliance, type TestAppliance } from "./helpers";

let app: TestAppliance;
let keys: { projectId: string; sandboxKey: string; productionKey: string };
const now = { ms: Date.parse("2026-11-21T10:00:00Z") };
const clock = { now: () => new Date(now.ms) };

beforeAll(async () => {
  app = await startTestAppliance({ clock });
  keys = await app.newProject("Cache project");
});
afterAll(() => app.close());

const get = (env: "sandbox" | "production", authorization: string) =>
  fetch(`${app.urls[env]}/webhooks`, { headers: { authorization } });

async function tokens(apiKey: string) {
  const res = await fetch(`${app.urls.sandbox}/auth/api-key`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ apiKey }) });
  return (await res.json()) as { access_token: string; refresh_token: string };
}

test("switching production off refuses a production key that was just used, and on again accepts it", async () => {
  expect((await get("production", basic(keys.productionKey))).status).toBe(200);
  expect((await app.admin("PATCH", `/projects/${keys.projectId}`, { production_enabled: false })).status).toBe(200);
  const refused = await get("production", basic(keys.productionKey));
  expect(refused.status).toBe(401);
  expect(((await refused.json()) as { detail: string }).detail).toContain("sandbox-only");
  await app.admin("PATCH", `/projects/${keys.projectId}`, { production_enabled: true });
  expect((await get("production", basic(keys.productionKey))).status).toBe(200);
});

test("a refresh retires an access token that was just used", async () => {
  const first = await tokens(keys.sandboxKey);
  expect((await get("sandbox", `Bearer ${first.access_token}`)).status).toBe(200);
  const res = await fetch(`${app.urls.sandbox}/auth/refresh`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ refreshToken: first.refresh_token }) });
  expect(res.status).toBe(200);
  expect((await get("sandbox", `Bearer ${first.access_token}`)).status).toBe(401);
});

test("a used access token still expires on the injected clock", async () => {
  const { access_token } = await tokens(keys.sandboxKey);
  expect((await get("sandbox", access_token)).status).toBe(200);
  now.ms += 3600_000;
  expect((await get("sandbox", access_token)).status).toBe(401);
});
