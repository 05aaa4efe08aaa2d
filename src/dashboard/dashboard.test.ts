// The dashboard's server side: sign-in and sessions (cookie attributes, hashed storage, expiry, a new
// admin key ends them, sign-out), same-origin writes, the page and its files, and the embedded main
// API of a project and environment (auth, scope, isolation, production switch, streamed uploads).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { problem, scenarios } from "../../test/admin-scenarios";
import { makeClip } from "../../test/fixtures/media";
import { basic, startTestAppliance, type TestAppliance } from "../../test/helpers";
import { openDatabase } from "../db/client";

let app: TestAppliance;
const now = { ms: Date.parse("2026-11-21T10:00:00.250Z") };
const clock = { now: () => new Date(now.ms) };
let project: { projectId: string; sandboxKey: string; productionKey: string };
let cookie = "";

async function signIn(adminKey: string, target = app): Promise<Response> {
  return fetch(`${target.urls.admin}/dashboard/session`, {
    method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ admin_key: adminKey }),
  });
}

const withCookie = (path: string, init: RequestInit = {}, value = cookie) =>
  fetch(`${app.urls.admin}${path}`, { ...init, headers: { ...(init.headers as Record<string, string>), cookie: value } });

beforeAll(async () => {
  app = await startTestAppliance({ clock, env: { VIDHOST_ADMIN_RATE_LIMIT: "100000" } });
  project = await app.newProject("Dashboard");
  const res = await signIn(app.adminKey);
  cookie = res.headers.get("set-cookie")!.split(";")[0];
});
afterAll(() => app.close());

describe("sign-in", () => {
  test("the admin key opens a session: HttpOnly, SameSite=Strict cookie, 12 h, stored hashed", async () => {
    const res = await signIn(app.adminKey);
    expect(res.status).toBe(201);
    const setCookie = res.headers.get("set-cookie")!;
    expect(setCookie).toMatch(/^vidhost_session=[0-9A-Za-z]{43}; Path=\/; HttpOnly; SameSite=Strict; Max-Age=43200$/);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const body = (await res.json()) as { expires_at: string; urls: Record<string, string> };
    expect(body.expires_at).toBe("2026-11-21T22:00:00+00:00");
    expect(body.urls).toEqual(app.ctx.urls);
    const secret = setCookie.split(";")[0].split("=")[1];
    const { sqlite } = openDatabase(join(app.dataDir, "vidhost.db"));
    const dump = JSON.stringify(sqlite.prepare("SELECT * FROM dashboard_sessions").all());
    sqlite.close();
    expect(dump).not.toContain(secret);
    expect(dump).toContain(new Bun.CryptoHasher("sha256").update(secret).digest("hex"));
  });

  scenarios(() => app, [
    { name: "a wrong key", method: "POST", path: "/dashboard/session", auth: "none", body: { admin_key: "nope" }, status: 400, match: problem(400, "authentication-invalid-user-credentials", { detail: "The admin key is wrong." }) },
    { name: "an API key is not the admin key", method: "POST", path: "/dashboard/session", auth: "none", body: { admin_key: "x".repeat(43) }, status: 400 },
    { name: "no key", method: "POST", path: "/dashboard/session", auth: "none", body: {}, status: 400, match: problem(400, "attribute-required", { name: "admin_key" }) },
    { name: "no session", method: "GET", path: "/dashboard/session", auth: "none", status: 401, match: problem(401, "authentication-invalid-session") },
  ]);

  test("the cookie authenticates the admin API and the session route", async () => {
    expect((await withCookie("/projects/count")).status).toBe(200);
    const session = await withCookie("/dashboard/session");
    expect(session.status).toBe(200);
    expect(((await session.json()) as { expires_at: string }).expires_at).toMatch(/^2026-11-21T22:00:00\+00:00$/);
    expect((await withCookie("/projects/count", {}, "vidhost_session=forged")).status).toBe(401);
  });

  test("writes with the cookie must come from the dashboard's own origin", async () => {
    const post = (headers: Record<string, string>) =>
      withCookie("/projects", { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify({ name: "csrf?" }) });
    const evil = await post({ origin: "http://evil.example" });
    expect(evil.status).toBe(403);
    expect(await evil.json()).toMatchObject(problem(403, "authorization-cross-origin-request"));
    expect((await post({ "sec-fetch-site": "cross-site" })).status).toBe(403);
    expect((await post({ "sec-fetch-site": "same-site" })).status).toBe(403);
    expect((await post({ origin: app.urls.admin, "sec-fetch-site": "same-origin" })).status).toBe(201);
    // Reads are not writes (and no CORS header lets another origin read the answer).
    const read = await withCookie("/projects/count", { headers: { origin: "http://evil.example" } });
    expect(read.status).toBe(200);
    expect(read.headers.get("access-control-allow-origin")).toBeNull();
    // The admin key itself is not a cookie: Basic calls from anywhere are fine.
    expect((await app.admin("POST", "/projects", { name: "scripted" })).status).toBe(201);
  });

  test("a session has its own rate budget, and sign-in attempts one of their own", async () => {
    const limited = await startTestAppliance({ clock });
    try {
      const session = (await signIn(limited.adminKey, limited)).headers.get("set-cookie")!.split(";")[0];
      const get = (headers: Record<string, string>) => fetch(`${limited.urls.admin}/projects/count`, { headers });
      now.ms += 1000;
      for (let i = 0; i < 10; i++) expect((await get({ authorization: basic(limited.adminKey) })).status).toBe(200);
      expect((await get({ authorization: basic(limited.adminKey) })).status).toBe(429);
      const viaSession: number[] = [];
      for (let i = 0; i < 11; i++) viaSession.push((await get({ cookie: session })).status);
      expect(viaSession).toEqual([...Array(10).fill(200), 429]);
      const attempts: number[] = [];
      for (let i = 0; i < 11; i++) attempts.push((await signIn(`guess-${i}`, limited)).status);
      expect(attempts).toEqual([...Array(10).fill(400), 429]);
    } finally {
      await limited.close();
    }
  });

  test("a session expires after its lifetime", async () => {
    const res = await signIn(app.adminKey);
    const short = res.headers.get("set-cookie")!.split(";")[0];
    now.ms += 12 * 3600_000 - 1;
    expect((await withCookie("/projects/count", {}, short)).status).toBe(200);
    now.ms += 1;
    expect((await withCookie("/projects/count", {}, short)).status).toBe(401);
    now.ms -= 12 * 3600_000; // back, for the tests below
  });

  test("sign-out ends the session and clears the cookie", async () => {
    const mine = (await signIn(app.adminKey)).headers.get("set-cookie")!.split(";")[0];
    const out = await withCookie("/dashboard/session", { method: "DELETE" }, mine);
    expect(out.status).toBe(204);
    expect(out.headers.get("set-cookie")).toMatch(/^vidhost_session=; Path=\/; HttpOnly; SameSite=Strict; Max-Age=0$/);
    expect((await withCookie("/projects/count", {}, mine)).status).toBe(401);
    // Other sessions live on.
    expect((await withCookie("/projects/count")).status).toBe(200);
  });

  test("a new admin key ends every session", async () => {
    const dataDir = (await import("../../test/helpers")).tempDir();
    const first = await startTestAppliance({ dataDir, env: { VIDHOST_ADMIN_KEY: "first-admin-key-0123456789" } });
    const old = (await signIn("first-admin-key-0123456789", first)).headers.get("set-cookie")!.split(";")[0];
    expect((await fetch(`${first.urls.admin}/projects/count`, { headers: { cookie: old } })).status).toBe(200);
    await first.stop();
    const second = await startTestAppliance({ dataDir, env: { VIDHOST_ADMIN_KEY: "second-admin-key-0123456789" } });
    try {
      expect((await fetch(`${second.urls.admin}/projects/count`, { headers: { cookie: old } })).status).toBe(401);
    } finally {
      await second.close();
      (await import("node:fs")).rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe("the page and its files", () => {
  test("GET / is the single page, with a strict CSP and no framing", async () => {
    const res = await fetch(`${app.urls.admin}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const csp = res.headers.get("content-security-policy")!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain(`frame-src ${app.urls.production} ${app.urls.sandbox}`);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    const html = await res.text();
    expect(html).not.toMatch(/https?:\/\/(?!127\.0\.0\.1)/); // nothing from the network
    const files = [...html.matchAll(/(?:src|href)="(\/dashboard\/assets\/[^"]+)"/g)].map((m) => m[1]);
    expect(files).toHaveLength(2);
    for (const file of files) {
      const asset = await fetch(`${app.urls.admin}${file}`);
      expect(asset.status).toBe(200);
      expect(asset.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
      expect(asset.headers.get("content-type")).toMatch(file.endsWith(".js") ? /^text\/javascript/ : /^text\/css/);
      // Small and self-contained: no CDN, no web fonts.
      const text = await asset.text();
      expect(text.length).toBeLessThan(120_000);
      expect(text).not.toMatch(/@import|fonts\.googleapis|cdn\./);
    }
    const missing = await fetch(`${app.urls.admin}/dashboard/assets/nope.js`);
    expect(missing.status).toBe(404);
  });
});

describe("the project API for the dashboard", () => {
  const base = () => `/projects/${project.projectId}/environments/sandbox`;

  scenarios(() => app, [
    { name: "lists the sandbox videos with the admin key", method: "GET", path: () => `${base()}/videos`, status: 200, match: { data: [], pagination: { itemsTotal: 0 } } },
    { name: "no credentials", method: "GET", path: () => `${base()}/videos`, auth: "none", status: 401, match: problem(401, "authentication-invalid-api-key") },
    { name: "an API key of the project is not enough", method: "GET", path: () => `${base()}/videos`, auth: () => basic(project.sandboxKey), status: 401 },
    { name: "unknown environment", method: "GET", path: () => `/projects/${project.projectId}/environments/staging/videos`, status: 404, match: problem(404, "resource-not-found", { name: "environment" }) },
    { name: "unknown project", method: "GET", path: "/projects/project_000000000000000000000/environments/sandbox/videos", status: 404, match: problem(404, "resource-not-found", { name: "project_id" }) },
    { name: "a malformed escape in the project id", method: "GET", path: "/projects/%E0%A4%A/environments/sandbox/videos", status: 404, match: problem(404, "resource-not-found", { name: "project_id" }) },
    { name: "production of a sandbox-only project", method: "GET", path: () => `/projects/${app.projectId}/environments/production/videos`, status: 403, match: problem(403, "production-not-enabled") },
    { name: "an unknown route inside", method: "GET", path: () => `${base()}/nothing`, status: 404, match: problem(404, "unrecognized-request-url") },
    { name: "the main API's own validation", method: "POST", path: () => `${base()}/videos`, body: { title: 5 }, status: 400, match: { name: "title", status: 400 } },
    { name: "a wrong method", method: "PUT", path: () => `${base()}/videos`, status: 405, check: (_, res) => expect(res.headers.get("allow")).toContain("GET") },
    { name: "video overview", method: "GET", path: () => `${base()}/video-overview?pageSize=5`, status: 200, match: { data: [], pagination: { pageSize: 5 } } },
    { name: "an unknown webhook's deliveries", method: "GET", path: () => `${base()}/webhooks/webhook_000000000000000000000/deliveries`, status: 404, match: { name: "webhookId" } },
    { name: "deliveries limit out of range", method: "GET", path: () => `${base()}/webhooks/webhook_000000000000000000000/deliveries?limit=500`, status: 400, match: { name: "limit" } },
  ]);

  test("the dashboard and the API key see the same resources, and only their project's", async () => {
    const created = await withCookie(`${base()}/videos`, {
      method: "POST", headers: { "content-type": "application/json", origin: app.urls.admin }, body: JSON.stringify({ title: "from the dashboard" }),
    });
    expect(created.status).toBe(201);
    const video = (await created.json()) as { videoId: string; assets: { player: string } };
    expect(video.assets.player).toBe(`${app.urls.sandbox}/vod/${video.videoId}`);
    expect((await app.api(project.sandboxKey, "GET", `/videos/${video.videoId}`)).status).toBe(200);
    // The same id through another project, or the other environment, is unknown.
    const other = await app.newProject("Other");
    expect((await app.admin("GET", `/projects/${other.projectId}/environments/sandbox/videos/${video.videoId}`)).status).toBe(404);
    expect((await app.admin("GET", `/projects/${project.projectId}/environments/production/videos/${video.videoId}`)).status).toBe(404);
    const overview = (await (await withCookie(`${base()}/video-overview`)).json()) as { data: { video: { videoId: string }; ingest: null; playable: boolean; qualities: unknown[] }[] };
    expect(overview.data).toEqual([expect.objectContaining({ video: expect.objectContaining({ videoId: video.videoId }), ingest: null, playable: false, qualities: [] })]);
  });

  test("a ranged upload through it follows the upload rules and stores the source", async () => {
    const clip = await makeClip({ width: 320, height: 180, seconds: 1 });
    const bytes = Bun.file(clip);
    const video = (await (await app.admin("POST", `${base()}/videos`, { title: "chunked" })).json()) as { videoId: string };
    // A first range that is not the last must hold 5 MiB: the main API's own rule answers.
    const half = Math.floor(bytes.size / 2);
    const send = async (chunk: Blob, range: string) => {
      const form = new FormData();
      form.append("file", chunk, "clip.mp4");
      return fetch(`${app.urls.admin}${base()}/videos/${video.videoId}/source`, { method: "POST", headers: { cookie, "content-range": range, origin: app.urls.admin }, body: form });
    };
    const first = await send(bytes.slice(0, half), `bytes 0-${half - 1}/${bytes.size}`);
    expect(first.status).toBe(400);
    expect(((await first.json()) as { type: string }).type).toEndWith("/video-content-range-by-bytes-range-too-small");
    const whole = await send(bytes, `bytes 0-${bytes.size - 1}/${bytes.size}`);
    expect(whole.status).toBe(201);
    const status = (await (await app.api(project.sandboxKey, "GET", `/videos/${video.videoId}/status`)).json()) as { ingest: { status: string; filesize: number } };
    expect(status.ingest).toMatchObject({ filesize: bytes.size });
    expect(["uploaded", "ingesting", "ingested"]).toContain(status.ingest.status);
  });

  test("production resources need production enabled", async () => {
    const sandboxOnly = (await (await app.admin("POST", "/projects", { name: "Sandbox only" })).json()) as { project_id: string };
    const path = `/projects/${sandboxOnly.project_id}/environments/production/webhooks`;
    expect((await app.admin("GET", path)).status).toBe(403);
    await app.admin("PATCH", `/projects/${sandboxOnly.project_id}`, { production_enabled: true });
    expect((await app.admin("GET", path)).status).toBe(200);
  });
});
