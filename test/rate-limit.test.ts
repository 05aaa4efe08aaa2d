// The main API's per-minute limits on a real appliance: each category on each environment (small
// limits through the config), per API key (Basic and bearer tokens of one key share a budget; two
// keys do not), per client address without a valid credential, the window reset (injected clock),
// the headers on every answer, and what the official Node client sees.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import ApiVideoClient from "@api.video/nodejs-client";
import { basic, startTestAppliance, type TestAppliance } from "./helpers";

type Env = "sandbox" | "production";
type Category = "uploads" | "writes" | "reads";

// Distinct small limits, so an answer shows which budget it was counted against.
const LIMITS: Record<Env, Record<Category, number>> = {
  sandbox: { uploads: 2, writes: 3, reads: 4 },
  production: { uploads: 3, writes: 4, reads: 5 },
};

// A frozen clock: a burst stays in one window until a test moves to the next minute.
const now = { ms: Date.parse("2026-11-21T10:00:00.250Z") };
const clock = { now: () => new Date(now.ms) };
/** Jumps to 250 ms into the next minute: every budget is fresh and resets in 60 s. */
const nextMinute = () => (now.ms = (Math.floor(now.ms / 60_000) + 1) * 60_000 + 250);

let app: TestAppliance;
let keys: { projectId: string; sandboxKey: string; productionKey: string };
let other: { sandboxKey: string; productionKey: string };

beforeAll(async () => {
  app = await startTestAppliance({
    clock,
    // No trusted proxy: the test client's loopback socket is a client like any other.
    env: { VIDHOST_ADMIN_RATE_LIMIT: "1000", VIDHOST_TRUSTED_PROXIES: "" },
    tweak: (c) => (c.rateLimits = structuredClone(LIMITS)),
  });
  keys = await app.newProject("Limited");
  other = await app.newProject("Other");
});
afterAll(() => app.close());

const base = (env: Env) => (env === "sandbox" ? app.urls.sandbox : app.urls.production);
const keyOf = (env: Env, k = keys) => (env === "sandbox" ? k.sandboxKey : k.productionKey);

/** One request of each category, each answering without creating anything. */
const REQUESTS: Record<Category, { method: string; path: string }> = {
  reads: { method: "GET", path: "/webhooks" },
  writes: { method: "DELETE", path: "/webhooks/webhook_0000000000000000000000" },
  uploads: { method: "POST", path: "/videos/vi0000000000000000000000/thumbnail" },
};

const send = (env: Env, category: Category, authorization?: string, extra: Record<string, string> = {}) =>
  fetch(base(env) + REQUESTS[category].path, {
    method: REQUESTS[category].method,
    headers: { ...(authorization ? { authorization } : {}), ...extra },
  });

const limitHeaders = (res: Response) => ({
  limit: res.headers.get("x-ratelimit-limit"),
  remaining: res.headers.get("x-ratelimit-remaining"),
  retryAfter: res.headers.get("x-ratelimit-retry-after"),
});

async function expectTooMany(res: Response, limit: number) {
  expect(res.status).toBe(429);
  expect(res.headers.get("content-type")).toBe("application/json");
  expect(res.headers.get("retry-after")).toBe("60");
  expect(limitHeaders(res)).toEqual({ limit: String(limit), remaining: "0", retryAfter: "60" });
  expect(await res.json()).toEqual({ type: "https://docs.api.video/reference/too-many-requests", title: "Too many requests.", status: 429 });
}

describe("each category on each environment", () => {
  const cases = (["sandbox", "production"] as const).flatMap((env) => (["uploads", "writes", "reads"] as const).map((category) => [env, category] as const));
  test.each(cases)("%s %s: the limit's worth of answers counting down, then 429 until the next minute", async (env, category) => {
    nextMinute();
    const limit = LIMITS[env][category];
    const authorization = basic(keyOf(env));
    for (let i = 1; i <= limit; i++) {
      const res = await send(env, category, authorization);
      expect(res.status).not.toBe(429);
      expect(limitHeaders(res)).toEqual({ limit: String(limit), remaining: String(limit - i), retryAfter: "60" });
    }
    await expectTooMany(await send(env, category, authorization), limit);
    // The other categories keep their own budgets.
    for (const c of (["uploads", "writes", "reads"] as const).filter((c) => c !== category)) {
      const res = await send(env, c, authorization);
      expect(res.status).not.toBe(429);
      expect(res.headers.get("x-ratelimit-remaining")).toBe(String(LIMITS[env][c] - 1));
    }
    nextMinute();
    const fresh = await send(env, category, authorization);
    expect(fresh.status).not.toBe(429);
    expect(fresh.headers.get("x-ratelimit-remaining")).toBe(String(limit - 1));
  });

  test("without an override the limits are api.video's", async () => {
    const plain = await startTestAppliance({ env: { VIDHOST_ADMIN_RATE_LIMIT: "1000" } });
    try {
      const k = await plain.newProject();
      const expected: Record<Env, Record<Category, string>> = {
        sandbox: { uploads: "40", writes: "40", reads: "100" },
        production: { uploads: "100", writes: "200", reads: "500" },
      };
      for (const env of ["sandbox", "production"] as const) {
        for (const category of ["uploads", "writes", "reads"] as const) {
          const url = (env === "sandbox" ? plain.urls.sandbox : plain.urls.production) + REQUESTS[category].path;
          const res = await fetch(url, { method: REQUESTS[category].method, headers: { authorization: basic(env === "sandbox" ? k.sandboxKey : k.productionKey) } });
          expect(res.headers.get("x-ratelimit-limit")).toBe(expected[env][category]);
        }
      }
    } finally {
      await plain.close();
    }
  });
});

describe("who a request counts against", () => {
  const token = async (apiKey: string) => {
    const res = await fetch(`${app.urls.sandbox}/auth/api-key`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ apiKey }) });
    return ((await res.json()) as { access_token: string }).access_token;
  };

  test("Basic and every bearer token of one key share its budget; another key is untouched", async () => {
    const first = await token(keys.sandboxKey);
    const second = await token(keys.sandboxKey);
    nextMinute();
    const remaining: string[] = [];
    for (const authorization of [basic(keys.sandboxKey), `Bearer ${first}`, `Bearer ${second}`, first]) {
      const res = await send("sandbox", "reads", authorization);
      expect(res.status).toBe(200);
      remaining.push(res.headers.get("x-ratelimit-remaining")!);
    }
    expect(remaining).toEqual(["3", "2", "1", "0"]);
    expect((await send("sandbox", "reads", `Bearer ${first}`)).status).toBe(429);
    // A second key of the same project, and another project's key, have budgets of their own.
    const sameProject = ((await (await app.admin("POST", `/projects/${keys.projectId}/api-keys`, { name: "second", environment: "sandbox" })).json()) as { value: string }).value;
    for (const key of [sameProject, other.sandboxKey]) {
      const res = await send("sandbox", "reads", basic(key));
      expect(res.status).toBe(200);
      expect(res.headers.get("x-ratelimit-remaining")).toBe("3");
    }
  });

  test("without a valid credential, the client address: new garbage or X-Forwarded-For from an untrusted socket buys nothing", async () => {
    nextMinute();
    const statuses: number[] = [];
    const remaining: string[] = [];
    const attempts = [undefined, basic("guess-1"), basic("guess-2"), "Bearer nope", basic(keys.productionKey)];
    for (const [i, authorization] of attempts.entries()) {
      const res = await send("sandbox", "reads", authorization, { "x-forwarded-for": `203.0.113.${i}` });
      statuses.push(res.status);
      remaining.push(res.headers.get("x-ratelimit-remaining")!);
    }
    // A production key on the sandbox listener is no credential there either.
    expect(statuses).toEqual([401, 401, 401, 401, 429]);
    expect(remaining).toEqual(["3", "2", "1", "0", "0"]);
    // A valid key from the same address is counted apart.
    expect((await send("sandbox", "reads", basic(keys.sandboxKey))).status).toBe(200);
  });

  test("behind a trusted proxy (loopback by default), the hop the proxy added is the address", async () => {
    const proxied = await startTestAppliance({ clock, env: { VIDHOST_ADMIN_RATE_LIMIT: "1000" }, tweak: (c) => (c.rateLimits = structuredClone(LIMITS)) });
    try {
      nextMinute();
      const from = (hops: string) =>
        fetch(proxied.urls.sandbox + REQUESTS.reads.path, { headers: { "x-forwarded-for": hops } }).then((r) => r.headers.get("x-ratelimit-remaining"));
      // What a client writes before the proxy's hop changes nothing: these three are one client.
      expect([await from("198.51.100.1"), await from("10.9.9.9, 198.51.100.1"), await from("spoof,198.51.100.1")]).toEqual(["3", "2", "1"]);
      // Another client behind the same proxy has a budget of its own.
      expect(await from("198.51.100.2")).toBe("3");
      // The proxy itself, forwarding nothing, is a client too.
      expect((await fetch(proxied.urls.sandbox + REQUESTS.reads.path)).headers.get("x-ratelimit-remaining")).toBe("3");
    } finally {
      await proxied.close();
    }
  });

  test("/auth/* ignores the Authorization header: token requests count against the address", async () => {
    nextMinute();
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await fetch(`${app.urls.sandbox}/auth/api-key`, {
        method: "POST",
        headers: { authorization: basic(keys.sandboxKey), "content-type": "application/json" },
        body: JSON.stringify({ apiKey: keys.sandboxKey }),
      });
      statuses.push(res.status);
      expect(res.headers.get("x-ratelimit-limit")).toBe(String(LIMITS.sandbox.writes));
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    // The key's own write budget is intact.
    expect((await send("sandbox", "writes", basic(keys.sandboxKey))).headers.get("x-ratelimit-remaining")).toBe("2");
  });

  test("upload-token uploads count against the address, in the uploads budget", async () => {
    nextMinute();
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${app.urls.sandbox}/upload?token=to0000000000000000000000`, { method: "POST", headers: { authorization: basic(keys.sandboxKey) } });
      statuses.push(res.status);
      expect(res.headers.get("x-ratelimit-limit")).toBe(String(LIMITS.sandbox.uploads));
    }
    expect(statuses).toEqual([401, 401, 429]);
  });
});

describe("headers on every answer", () => {
  test("2xx, 201, 204, 400, 401, 404, 405 and 429 carry the three headers; delivery and preflights do not", async () => {
    nextMinute();
    const authorization = basic(other.productionKey);
    const call = (method: string, path: string, body?: unknown, auth: string | null = authorization) =>
      fetch(app.urls.production + path, {
        method,
        headers: { ...(auth ? { authorization: auth } : {}), ...(body !== undefined ? { "content-type": "application/json" } : {}) },
        body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
      });
    const created = await call("POST", "/webhooks", { events: ["video.encoding.quality.completed"], url: "https://example.com/h" });
    const { webhookId } = (await created.clone().json()) as { webhookId: string };
    const answers: [number, Response][] = [
      [201, created],
      [200, await call("GET", `/webhooks/${webhookId}`)],
      [204, await call("DELETE", `/webhooks/${webhookId}`)],
      [400, await call("POST", "/webhooks", "{not json")],
      [401, await call("GET", "/videos", undefined, null)],
      [404, await call("GET", "/no-such-route")],
      [405, await call("PUT", "/webhooks")],
    ];
    for (const [status, res] of answers) {
      expect(res.status).toBe(status);
      const h = limitHeaders(res);
      expect(Number(h.limit)).toBeGreaterThan(0);
      expect(h.remaining).toMatch(/^\d+$/);
      expect(h.retryAfter).toBe("60");
      expect(res.headers.get("access-control-allow-origin")).toBe("*");
    }
    // The POST, the DELETE, the bad POST and the PUT (405) used the 4 production writes: one more is refused.
    await expectTooMany(await call("PATCH", "/videos/vi0000000000000000000000", { title: "x" }), LIMITS.production.writes);

    const preflight = await fetch(`${app.urls.sandbox}/videos`, { method: "OPTIONS", headers: { origin: "https://example.com", "access-control-request-method": "POST" } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-headers")).toContain("Authorization");
    expect(preflight.headers.get("x-ratelimit-limit")).toBeNull();
    const health = await fetch(`${app.urls.sandbox}/health`);
    expect(health.headers.get("x-ratelimit-limit")).toBeNull();
  });
});

test("the official Node client gets an ApiVideoError 429 with api.video's body (it does not retry)", async () => {
  nextMinute();
  const client = new ApiVideoClient({ apiKey: keys.productionKey, baseUri: app.urls.production });
  for (let i = 0; i < LIMITS.production.reads; i++) await client.webhooks.list();
  const error = await client.webhooks.list().catch((e: unknown) => e);
  expect(error).toMatchObject({ code: 429, problemDetails: { type: "https://docs.api.video/reference/too-many-requests", title: "Too many requests.", status: 429 } });
  nextMinute();
  expect((await client.webhooks.list()).data).toEqual([]);
});
