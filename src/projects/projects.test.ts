// Admin API /projects: scenario tables for count, list (filters, sorting, page edges), create, read,
// update (rename, mode, scheduled deletion), the errors, and the deletion job carrying it out.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { problem, scenarios, send } from "../../test/admin-scenarios";
import { basic, startTestAppliance, type TestAppliance } from "../../test/helpers";
import { deleteDueProjects } from "./deletion";
import { nextCycle } from "./service";

let app: TestAppliance;
const now = { ms: Date.parse("2026-11-21T10:00:00Z") };
const clock = { now: () => new Date(now.ms) };
const ids: Record<string, string> = {};
let otherKey = "";

// Five projects besides "Default project", one second apart: created_at order = creation order.
const NAMES = ["Alpha", "bravo", "Charlie", "alphabet soup", "Delta"];

beforeAll(async () => {
  app = await startTestAppliance({ clock, env: { VIDHOST_ADMIN_RATE_LIMIT: "100000" } });
  ids.default = app.projectId;
  for (const name of NAMES) {
    now.ms += 1000;
    const res = await app.admin("POST", "/projects", { name });
    ids[name] = ((await res.json()) as { project_id: string }).project_id;
  }
  otherKey = app.sandboxKey;
});
afterAll(() => app.close());

const names = (body: { items: { name: string }[] }) => body.items.map((p) => p.name);
const rels = (body: { links: { rel: string }[] }) => body.links.map((l) => l.rel);

describe("GET /projects/count", () => {
  scenarios(() => app, [
    { name: "every project", method: "GET", path: "/projects/count", status: 200, match: { count: 6 } },
    { name: "name contains, case-insensitive", method: "GET", path: "/projects/count?name=ALPHA", status: 200, match: { count: 2 } },
    { name: "no match", method: "GET", path: "/projects/count?name=zulu", status: 200, match: { count: 0 } },
    { name: "unknown parameter", method: "GET", path: "/projects/count?page=1", status: 400, match: problem(400, "invalid-attribute", { name: "page" }) },
    { name: "no credentials", method: "GET", path: "/projects/count", auth: "none", status: 401, match: problem(401, "authentication-invalid-api-key") },
  ]);
});

describe("GET /projects", () => {
  scenarios(() => app, [
    {
      name: "defaults: created_at ascending, page 1 of 20", method: "GET", path: "/projects", status: 200,
      check: (b) => {
        expect(names(b)).toEqual(["Default project", ...NAMES]);
        expect(b.pagination).toEqual({ page: 1, page_size: 20, item_count: 6 });
        expect(b.links).toEqual([{ rel: "self", href: "/projects?page=1&page_size=20" }]);
        expect(b).not.toHaveProperty("pagination.items_total");
        expect(b.items[1]).toEqual({
          project_id: ids.Alpha, created_at: "2026-11-21T10:00:01+00:00", name: "Alpha", deletes_at: null,
          region: "eu-central-1", deleted: false, production_enabled: false,
        });
      },
    },
    {
      name: "first page of 2: self and next, no previous", method: "GET", path: "/projects?page_size=2", status: 200,
      check: (b) => {
        expect(names(b)).toEqual(["Default project", "Alpha"]);
        expect(b.pagination).toEqual({ page: 1, page_size: 2, item_count: 2 });
        expect(b.links).toEqual([{ rel: "self", href: "/projects?page_size=2&page=1" }, { rel: "next", href: "/projects?page_size=2&page=2" }]);
      },
    },
    {
      name: "a middle page has previous and next", method: "GET", path: "/projects?page=2&page_size=2", status: 200,
      check: (b) => {
        expect(names(b)).toEqual(["bravo", "Charlie"]);
        expect(rels(b)).toEqual(["previous", "self", "next"]);
      },
    },
    {
      name: "the last full page has no next", method: "GET", path: "/projects?page=3&page_size=2", status: 200,
      check: (b) => {
        expect(names(b)).toEqual(["alphabet soup", "Delta"]);
        expect(rels(b)).toEqual(["previous", "self"]);
      },
    },
    {
      name: "past the end: empty, previous only", method: "GET", path: "/projects?page=9&page_size=2", status: 200,
      check: (b) => {
        expect(b.items).toEqual([]);
        expect(b.pagination).toEqual({ page: 9, page_size: 2, item_count: 0 });
        expect(b.links).toEqual([{ rel: "previous", href: "/projects?page=8&page_size=2" }, { rel: "self", href: "/projects?page=9&page_size=2" }]);
      },
    },
    { name: "page_size 100 is allowed", method: "GET", path: "/projects?page_size=100", status: 200, match: { pagination: { page_size: 100, item_count: 6 } } },
    {
      name: "links keep the filters", method: "GET", path: "/projects?name=a&sort_by=name&sort_order=desc&page_size=1", status: 200,
      check: (b) => {
        expect(b.links).toEqual([
          { rel: "self", href: "/projects?name=a&sort_by=name&sort_order=desc&page_size=1&page=1" },
          { rel: "next", href: "/projects?name=a&sort_by=name&sort_order=desc&page_size=1&page=2" },
        ]);
      },
    },
    { name: "name filter", method: "GET", path: "/projects?name=alpha", status: 200, check: (b) => expect(names(b)).toEqual(["Alpha", "alphabet soup"]) },
    { name: "sort by name ascending", method: "GET", path: "/projects?sort_by=name", status: 200, check: (b) => expect(names(b)).toEqual(["Alpha", "Charlie", "Default project", "Delta", "alphabet soup", "bravo"]) },
    { name: "sort by name descending", method: "GET", path: "/projects?sort_by=name&sort_order=desc", status: 200, check: (b) => expect(names(b)).toEqual(["bravo", "alphabet soup", "Delta", "Default project", "Charlie", "Alpha"]) },
    { name: "newest first", method: "GET", path: "/projects?sort_by=created_at&sort_order=desc&page_size=2", status: 200, check: (b) => expect(names(b)).toEqual(["Delta", "alphabet soup"]) },
    { name: "page 0", method: "GET", path: "/projects?page=0", status: 400, match: problem(400, "invalid-attribute", { name: "page", total_problems: 1, constraint: "invalid-attribute" }) },
    { name: "page_size 0", method: "GET", path: "/projects?page_size=0", status: 400, match: problem(400, "invalid-attribute", { name: "page_size" }) },
    { name: "page_size 101", method: "GET", path: "/projects?page_size=101", status: 400, match: problem(400, "invalid-attribute", { name: "page_size", detail: "This attribute must be an integer from 1 to 100." }) },
    { name: "page_size not a number", method: "GET", path: "/projects?page_size=ten", status: 400, match: problem(400, "invalid-attribute", { name: "page_size" }) },
    { name: "sort_by value is not a project field", method: "GET", path: "/projects?sort_by=value", status: 400, match: problem(400, "invalid-attribute", { name: "sort_by", detail: "This attribute must be one of: created_at, name." }) },
    { name: "sort_order sideways", method: "GET", path: "/projects?sort_order=up", status: 400, match: problem(400, "invalid-attribute", { name: "sort_order" }) },
    {
      name: "every problem at once", method: "GET", path: "/projects?page=-1&page_size=500&sort_by=size", status: 400,
      match: problem(400, "invalid-attribute", { total_problems: 3, name: "page" }),
      check: (b) => expect(b.problems.map((p: { name: string }) => p.name)).toEqual(["page", "page_size", "sort_by"]),
    },
    { name: "unknown parameter", method: "GET", path: "/projects?limit=5", status: 400, match: problem(400, "invalid-attribute", { name: "limit", detail: "This attribute is not allowed." }) },
    { name: "no credentials", method: "GET", path: "/projects", auth: "none", status: 401, match: problem(401, "authentication-invalid-api-key") },
    { name: "wrong admin key", method: "GET", path: "/projects", auth: () => basic("nope"), status: 401 },
    { name: "an API key is not the admin key", method: "GET", path: "/projects", auth: () => basic(otherKey), status: 401 },
    { name: "admin key without the colon", method: "GET", path: "/projects", auth: () => `Basic ${Buffer.from("test-admin-key-0123456789").toString("base64")}`, status: 401 },
    { name: "credentials are checked before the query", method: "GET", path: "/projects?page=0", auth: "none", status: 401 },
  ]);
});

describe("POST /projects", () => {
  scenarios(() => app, [
    {
      name: "creates a sandbox-only project", method: "POST", path: "/projects", body: { name: "Echo" }, status: 201,
      match: { name: "Echo", deletes_at: null, region: "eu-central-1", deleted: false, production_enabled: false },
      check: (b) => expect(b.project_id).toMatch(/^project_[0-9A-Za-z]{22}$/),
    },
    { name: "the deprecated region is accepted", method: "POST", path: "/projects", body: { name: "Foxtrot", region: "eu-central-1" }, status: 201, match: { name: "Foxtrot" } },
    { name: "name missing", method: "POST", path: "/projects", body: {}, status: 400, match: problem(400, "attribute-required", { name: "name", total_problems: 1, constraint: "attribute-required" }) },
    { name: "empty name", method: "POST", path: "/projects", body: { name: "" }, status: 400, match: problem(400, "invalid-attribute", { name: "name" }) },
    { name: "name too long", method: "POST", path: "/projects", body: { name: "x".repeat(256) }, status: 400, match: problem(400, "invalid-attribute", { name: "name" }) },
    { name: "another region", method: "POST", path: "/projects", body: { name: "G", region: "us-east-1" }, status: 400, match: problem(400, "invalid-attribute", { name: "region" }) },
    { name: "unknown field", method: "POST", path: "/projects", body: { name: "G", production_enabled: true }, status: 400, match: problem(400, "invalid-attribute", { name: "production_enabled" }) },
    { name: "not JSON", method: "POST", path: "/projects", raw: "{name:", status: 400, match: problem(400, "invalid-payload", { total_problems: 1, constraint: "invalid-payload" }) },
    { name: "no credentials", method: "POST", path: "/projects", body: { name: "G" }, auth: "none", status: 401 },
  ]);
});

describe("GET and PATCH /projects/{project_id}", () => {
  scenarios(() => app, [
    { name: "reads one", method: "GET", path: () => `/projects/${ids.bravo}`, status: 200, match: () => ({ project_id: ids.bravo, name: "bravo" }) },
    { name: "unknown id", method: "GET", path: "/projects/project_000000000000000000000", status: 404, match: problem(404, "resource-not-found", { name: "project_id" }) },
    { name: "renames", method: "PATCH", path: () => `/projects/${ids.Charlie}`, body: { name: "Charlie 2" }, status: 200, match: { name: "Charlie 2" } },
    { name: "enables production", method: "PATCH", path: () => `/projects/${ids.Charlie}`, body: { production_enabled: true }, status: 200, match: { name: "Charlie 2", production_enabled: true } },
    { name: "an empty body changes nothing", method: "PATCH", path: () => `/projects/${ids.Charlie}`, body: {}, status: 200, match: { name: "Charlie 2", production_enabled: true } },
    {
      name: "next_cycle: midnight UTC on the first of next month", method: "PATCH", path: () => `/projects/${ids.Delta}`, body: { deletes_at: "next_cycle" }, status: 200,
      match: { deletes_at: "2026-12-01T00:00:00+00:00", deleted: false },
    },
    { name: "null cancels a scheduled deletion", method: "PATCH", path: () => `/projects/${ids.Charlie}`, body: { deletes_at: null }, status: 200, match: { deletes_at: null } },
    { name: "any other deletes_at", method: "PATCH", path: () => `/projects/${ids.Charlie}`, body: { deletes_at: "2027-01-01" }, status: 400, match: problem(400, "invalid-attribute", { name: "deletes_at" }) },
    { name: "production_enabled must be a boolean", method: "PATCH", path: () => `/projects/${ids.Charlie}`, body: { production_enabled: "yes" }, status: 400, match: problem(400, "invalid-attribute", { name: "production_enabled" }) },
    { name: "unknown field", method: "PATCH", path: () => `/projects/${ids.Charlie}`, body: { region: "eu-central-1" }, status: 400 },
    { name: "unknown id", method: "PATCH", path: "/projects/project_000000000000000000000", body: { name: "x" }, status: 404, match: problem(404, "resource-not-found", { name: "project_id" }) },
    { name: "no credentials", method: "PATCH", path: () => `/projects/${ids.Charlie}`, body: { name: "x" }, auth: "none", status: 401 },
    {
      name: "there is no project DELETE", method: "DELETE", path: () => `/projects/${ids.Charlie}`, status: 405, match: problem(405, "method-not-allowed"),
      check: (_, res) => expect(res.headers.get("allow")?.split(", ").sort()).toEqual(["GET", "PATCH"]),
    },
    { name: "unknown admin path", method: "GET", path: "/nothing-here", status: 404, match: problem(404, "unrecognized-request-url") },
  ]);
});

test("nextCycle is the first day of the following month, across a year end", () => {
  expect(nextCycle(new Date("2026-11-21T10:00:00Z")).toISOString()).toBe("2026-12-01T00:00:00.000Z");
  expect(nextCycle(new Date("2026-12-31T23:59:59Z")).toISOString()).toBe("2027-01-01T00:00:00.000Z");
  expect(nextCycle(new Date("2026-01-01T00:00:00Z")).toISOString()).toBe("2026-02-01T00:00:00.000Z");
});

describe("the scheduled deletion", () => {
  test("is carried out once due, with keys, videos and media; other projects stay", async () => {
    const doomed = ((await (await app.admin("POST", "/projects", { name: "Doomed" })).json()) as { project_id: string }).project_id;
    const key = ((await (await app.admin("POST", `/projects/${doomed}/api-keys`, { name: "k", environment: "sandbox" })).json()) as { value: string }).value;
    const video = (await (await app.api(key, "POST", "/videos", { title: "to go" })).json()) as { videoId: string };
    await app.ctx.storage.put([doomed, "sandbox", "videos", video.videoId, "source"], "bytes");
    const mediaDir = join(app.dataDir, "media", doomed);
    expect(existsSync(mediaDir)).toBe(true);
    await app.admin("PATCH", `/projects/${doomed}`, { deletes_at: "next_cycle" });
    expect((await app.api(key, "GET", "/videos")).status).toBe(200);

    // Not yet due: nothing happens.
    expect(await deleteDueProjects(app.ctx)).toEqual([]);
    now.ms = Date.parse("2026-11-30T23:59:59Z");
    expect(await deleteDueProjects(app.ctx)).toEqual([]);

    now.ms = Date.parse("2026-12-01T00:00:00Z");
    const deleted = await deleteDueProjects(app.ctx);
    expect(deleted.sort()).toEqual([doomed, ids.Delta].sort());
    for (const id of deleted) expect((await app.admin("GET", `/projects/${id}`)).status).toBe(404);
    expect((await app.api(key, "GET", "/videos")).status).toBe(401);
    expect(existsSync(mediaDir)).toBe(false);
    const { sqlite } = await import("../db/client").then((m) => m.openDatabase(join(app.dataDir, "vidhost.db")));
    const left = sqlite.prepare("SELECT (SELECT count(*) FROM videos WHERE project_id = ?) AS videos, (SELECT count(*) FROM api_keys WHERE project_id = ?) AS keys").get(doomed, doomed);
    sqlite.close();
    expect(left).toEqual({ videos: 0, keys: 0 });
    // The others are untouched, and a second run finds nothing.
    expect((await app.admin("GET", `/projects/${ids.bravo}`)).status).toBe(200);
    expect(await deleteDueProjects(app.ctx)).toEqual([]);
    const count = (await (await send(app, { method: "GET", path: "/projects/count" })).json()) as { count: number };
    expect(count.count).toBe(7); // 6 + Echo + Foxtrot - Delta
  });
});
