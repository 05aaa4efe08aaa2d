// Scenario table for /webhooks: method, path, body → status and body shape.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestAppliance, type TestAppliance } from "../../test/helpers";

let app: TestAppliance;
let key: string;
let otherKey: string;
const url = "https://example.com/hook";

beforeAll(async () => {
  // Internal addresses refused, as in production (the test helper allows them for local receivers).
  app = await startTestAppliance({ env: { VIDHOST_WEBHOOK_LIMIT: "30", VIDHOST_WEBHOOK_ALLOW_PRIVATE: "false" } });
  ({ sandboxKey: key } = await app.newProject("Webhooks"));
  ({ sandboxKey: otherKey } = await app.newProject("Limits"));
});
afterAll(() => app.close());

const raw = (method: string, path: string, body?: string, contentType = "application/json") =>
  fetch(app.urls.sandbox + path, {
    method,
    headers: { authorization: `Basic ${Buffer.from(key + ":").toString("base64")}`, ...(body !== undefined ? { "content-type": contentType } : {}) },
    body,
  });

type Row = [name: string, method: string, path: string, body: unknown, status: number, shape: Record<string, unknown>];

describe("creation and errors", () => {
  const problems = (...p: [string, string][]) => p.map(([kind, name]) => ({ type: `https://docs.api.video/reference/${kind}`, name }));
  const rows: Row[] = [
    ["valid", "POST", "/webhooks", { events: ["video.encoding.quality.completed"], url }, 201, { events: ["video.encoding.quality.completed"], url }],
    ["all four events", "POST", "/webhooks", { events: ["live-stream.broadcast.started", "live-stream.broadcast.ended", "video.source.recorded", "video.encoding.quality.completed"], url }, 201, { url }],
    ["missing both", "POST", "/webhooks", {}, 400, { title: "Invalid attributes.", name: "events", problems: problems(["attribute-required", "events"], ["attribute-required", "url"]) }],
    ["missing url", "POST", "/webhooks", { events: ["video.source.recorded"] }, 400, { name: "url", problems: problems(["attribute-required", "url"]) }],
    ["events not an array", "POST", "/webhooks", { events: "video.source.recorded", url }, 400, { problems: [{ name: "events", title: "This attribute must be an array." }] }],
    ["unknown event", "POST", "/webhooks", { events: ["video.caption.generated"], url }, 400, { problems: problems(["invalid-attribute", "events[0]"]) }],
    ["url not http(s)", "POST", "/webhooks", { events: ["video.source.recorded"], url: "ftp://example.com/x" }, 400, { problems: problems(["invalid-attribute", "url"]) }],
    ["public address literal", "POST", "/webhooks", { events: ["video.source.recorded"], url: "http://93.184.216.34:8080/hook" }, 201, { url: "http://93.184.216.34:8080/hook" }],
    ...["http://127.0.0.1:8080/hook", "http://[::1]/", "http://10.0.0.1/", "http://169.254.169.254/latest/meta-data/", "http://localhost/",
      "https://LOCALHOST.:8443/x", "http://api.localhost/", "http://[::ffff:127.0.0.1]/", "http://0x7f000001/", "http://[fd00:ec2::254]/"]
      .map((u): Row => [`internal address ${u}`, "POST", "/webhooks", { events: ["video.source.recorded"], url: u }, 400,
        { title: "Invalid attributes.", name: "url", problems: [{ type: "https://docs.api.video/reference/invalid-attribute", name: "url", title: expect.stringMatching(/must not point to an internal address \((loopback|private|link-local|unique-local)\)/) }] }]),
    ["every rule at once", "POST", "/webhooks", { events: ["nope"], url: "not a url" }, 400, { problems: problems(["invalid-attribute", "events[0]"], ["invalid-attribute", "url"]) }],
    ["unknown attribute", "POST", "/webhooks", { events: ["video.source.recorded"], url, secret: 1 }, 400, { name: "secret" }],
    ["unknown id", "GET", "/webhooks/webhook_0000000000000000000000", undefined, 404, { name: "webhookId", title: "The requested resource could not be found." }],
    ["delete unknown id", "DELETE", "/webhooks/webhook_0000000000000000000000", undefined, 404, { name: "webhookId" }],
    ["wrong method on list", "PUT", "/webhooks", undefined, 405, { title: "Method is not allowed for this route." }],
    ["wrong method on item", "PATCH", "/webhooks/webhook_0000000000000000000000", undefined, 405, { status: 405 }],
    ["unknown path", "GET", "/webhookz", undefined, 404, { title: "Unrecognized request URL.", type: "https://docs.api.video/reference/unrecognized-request-url" }],
    ["bad events filter", "GET", "/webhooks?events=nope", undefined, 400, { name: "events" }],
    ["unknown query parameter", "GET", "/webhooks?color=red", undefined, 400, { name: "color", title: "Invalid attributes." }],
    ["page 0", "GET", "/webhooks?currentPage=0", undefined, 400, { name: "currentPage" }],
    ["page size 0", "GET", "/webhooks?pageSize=0", undefined, 400, { name: "pageSize", range: { min: 1, max: 100 } }],
    ["page size 101", "GET", "/webhooks?pageSize=101", undefined, 400, { name: "pageSize" }],
    ["page size not a number", "GET", "/webhooks?pageSize=ten", undefined, 400, { name: "pageSize" }],
  ];
  for (const [name, method, path, body, status, shape] of rows) {
    test(name, async () => {
      const res = await app.api(key, method, path, body);
      expect(res.status).toBe(status);
      expect(res.headers.get("content-type")).toBe("application/json");
      expect(res.headers.get("x-ratelimit-limit")).toBeTruthy();
      const json = await res.json();
      expect(json).toMatchObject(shape);
      if (status >= 400) expect(json).toMatchObject({ status, type: expect.stringContaining("/reference/") });
    });
  }

  test("405 names the allowed methods", async () => {
    const res = await app.api(key, "PUT", "/webhooks");
    expect(res.headers.get("allow")).toBe("GET, POST");
  });

  test("an undecodable or missing body is invalid-payload", async () => {
    for (const body of ["{nope", "", "[1,2]", "42"]) {
      const res = await raw("POST", "/webhooks", body);
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ type: "https://docs.api.video/reference/invalid-payload", title: "The payload is invalid." });
    }
  });

  test("a JSON body over 1 MiB is 413 with the error shape", async () => {
    const res = await raw("POST", "/webhooks", JSON.stringify({ events: ["video.source.recorded"], url: url + "?" + "x".repeat(1024 * 1024) }));
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ status: 413, title: "The payload is too large." });
  });

  test("created webhooks carry an id, a date and a signature secret; get and delete work", async () => {
    const created = (await (await app.api(key, "POST", "/webhooks", { events: ["video.source.recorded"], url })).json()) as Record<string, string>;
    expect(created.webhookId).toMatch(/^webhook_[0-9A-Za-z]{22}$/);
    expect(created.signatureSecret).toMatch(/^sig_sec_[0-9A-Za-z]{22}$/);
    expect(created.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/);
    expect(await (await app.api(key, "GET", `/webhooks/${created.webhookId}`)).json()).toEqual(created);
    const del = await app.api(key, "DELETE", `/webhooks/${created.webhookId}`);
    expect(del.status).toBe(204);
    expect(await del.text()).toBe("");
    expect((await app.api(key, "GET", `/webhooks/${created.webhookId}`)).status).toBe(404);
  });

  test("the webhook limit is per project and environment", async () => {
    const limited = await startTestAppliance({ env: { VIDHOST_WEBHOOK_LIMIT: "2" } });
    try {
      const p = await limited.newProject();
      for (let i = 0; i < 2; i++) expect((await limited.api(p.sandboxKey, "POST", "/webhooks", { events: ["video.source.recorded"], url })).status).toBe(201);
      const res = await limited.api(p.sandboxKey, "POST", "/webhooks", { events: ["video.source.recorded"], url });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ problems: [{ type: "https://docs.api.video/reference/webhook-limit-reached", title: "Your account has reached the webhook urls limit." }] });
      expect((await limited.api(p.productionKey, "POST", "/webhooks", { events: ["video.source.recorded"], url }, "production")).status).toBe(201);
    } finally {
      await limited.close();
    }
  });
});

describe("listing", () => {
  beforeAll(async () => {
    // 12 webhooks in a fresh project: 7 on video.source.recorded, 5 on both live events.
    for (let i = 0; i < 12; i++) {
      const events = i < 7 ? ["video.source.recorded"] : ["live-stream.broadcast.started", "live-stream.broadcast.ended"];
      await app.api(otherKey, "POST", "/webhooks", { events, url: `${url}/${i}` });
    }
  });
  const list = async (query: string) => {
    const res = await app.api(otherKey, "GET", `/webhooks${query}`);
    expect(res.status).toBe(200);
    return (await res.json()) as { data: { url: string }[]; pagination: { currentPage: number; pageSize: number; pagesTotal: number; itemsTotal: number; currentPageItems: number; links: { rel: string; uri: string }[] } };
  };
  const rels = (links: { rel: string }[]) => links.map((l) => l.rel);

  test("defaults: page 1 of 25", async () => {
    const body = await list("");
    expect(body.pagination).toMatchObject({ currentPage: 1, pageSize: 25, pagesTotal: 1, itemsTotal: 12, currentPageItems: 12 });
    expect(rels(body.pagination.links)).toEqual(["self", "first", "last"]);
    expect(body.data[0].url).toBe(`${url}/0`);
  });

  test("first, middle and last pages with filters kept in the links", async () => {
    const first = await list("?events=video.source.recorded&pageSize=3");
    expect(first.pagination).toMatchObject({ currentPage: 1, pagesTotal: 3, itemsTotal: 7, currentPageItems: 3 });
    expect(rels(first.pagination.links)).toEqual(["self", "first", "next", "last"]);
    const middle = await list("?events=video.source.recorded&pageSize=3&currentPage=2");
    expect(rels(middle.pagination.links)).toEqual(["self", "first", "previous", "next", "last"]);
    expect(middle.data.map((d) => d.url)).toEqual([3, 4, 5].map((i) => `${url}/${i}`));
    for (const link of middle.pagination.links) {
      expect(link.uri).toStartWith("/webhooks?");
      expect(link.uri).toContain("events=video.source.recorded");
      expect(link.uri).toContain("pageSize=3");
    }
    expect(middle.pagination.links.find((l) => l.rel === "next")!.uri).toContain("currentPage=3");
    const last = await list("?events=video.source.recorded&pageSize=3&currentPage=3");
    expect(last.pagination).toMatchObject({ currentPage: 3, currentPageItems: 1 });
    expect(rels(last.pagination.links)).toEqual(["self", "first", "previous", "last"]);
  });

  test("filter by a live event", async () => {
    const body = await list("?events=live-stream.broadcast.ended");
    expect(body.pagination.itemsTotal).toBe(5);
  });

  test("a page past the end is empty", async () => {
    const body = await list("?pageSize=10&currentPage=5");
    expect(body.data).toHaveLength(0);
    expect(body.pagination).toMatchObject({ currentPage: 5, pagesTotal: 2, currentPageItems: 0 });
  });
});
