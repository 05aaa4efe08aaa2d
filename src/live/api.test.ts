// Scenario table for /live-streams and live delivery without a broadcast: method, path, body → status and body shape.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestAppliance, type TestAppliance } from "../../test/helpers";
import { MAX_RESTREAMS, parseRestreams } from "./service";

let app: TestAppliance;
let key: string;
let productionKey: string;
let otherKey: string;

// The sandbox's per-minute write limit (40) is not what this file is about.
const UNLIMITED = ["sandbox", "production"].flatMap((e) => ["uploads", "writes", "reads"].map((c) => `${e}.${c}=100000`)).join(",");

beforeAll(async () => {
  app = await startTestAppliance({ env: { VIDHOST_RATE_LIMITS: UNLIMITED, VIDHOST_ADMIN_RATE_LIMIT: "1000" } });
  ({ sandboxKey: key, productionKey } = await app.newProject("Live"));
  ({ sandboxKey: otherKey } = await app.newProject("Other"));
});
afterAll(() => app.close());

const call = (method: string, path: string, body?: unknown, k = key, env: "sandbox" | "production" = "sandbox") => app.api(k, method, path, body, env);
const json = async (res: Response) => (await res.json()) as Record<string, any>;
const create = async (body: Record<string, unknown> = { name: "Stream" }, k = key) => json(await call("POST", "/live-streams", body, k));
const problem = (kind: string, name: string) => ({ type: `https://docs.api.video/reference/${kind}`, name });
const dest = (over: Record<string, unknown> = {}) => ({ name: "YouTube", serverUrl: "rtmp://a.rtmp.youtube.com/live2", streamKey: "abcd-1234", ...over });

describe("create", () => {
  test("a live stream: li id, random stream key, defaults, assets on this server, JSON content type exactly", async () => {
    const res = await call("POST", "/live-streams", { name: "My live" });
    expect(res.status).toBe(200); // api.video answers 200 here
    expect(res.headers.get("content-type")).toBe("application/json");
    const body = await json(res);
    expect(body.liveStreamId).toMatch(/^li[0-9A-Za-z]{22}$/);
    expect(body.streamKey).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(body).toMatchObject({ name: "My live", public: true, broadcasting: false, restreams: [] });
    expect(body).not.toHaveProperty("playerId"); // unset: left out, as the schema's plain string cannot be null
    expect(body.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/);
    const base = `${app.urls.sandbox}/live/${body.liveStreamId}`;
    expect(body.assets).toEqual({
      hls: `${base}.m3u8`,
      iframe: `<iframe src="${base}" width="100%" height="100%" frameborder="0" scrolling="no" allowfullscreen=""></iframe>`,
      player: base,
      thumbnail: `${base}/thumbnail.jpg`,
    });
    const other = await create();
    expect(other.streamKey).not.toBe(body.streamKey);
  });

  test("every field", async () => {
    const body = await create({ name: "Full", public: false, playerId: "pl4f4ferf5erfr5zed4fsdd", restreams: [dest(), dest({ name: "Twitch", serverUrl: "rtmps://live.twitch.tv:443/app" })] });
    expect(body).toMatchObject({ name: "Full", public: false, playerId: "pl4f4ferf5erfr5zed4fsdd" });
    expect(body.restreams).toEqual([dest(), dest({ name: "Twitch", serverUrl: "rtmps://live.twitch.tv:443/app" })]);
  });

  type Row = [name: string, body: unknown, shape: Record<string, unknown>];
  const rows: Row[] = [
    ["no name", {}, { name: "name", problems: [problem("attribute-required", "name")] }],
    ["empty name", { name: "" }, { problems: [problem("invalid-attribute", "name")] }],
    ["unknown attribute", { name: "x", record: true }, { problems: [problem("invalid-attribute", "record")] }],
    ["public not boolean", { name: "x", public: "yes" }, { problems: [problem("invalid-attribute", "public")] }],
    ["restreams not an array", { name: "x", restreams: {} }, { name: "restreams", problems: [problem("invalid-attribute", "restreams")] }],
    ["six restreams", { name: "x", restreams: Array.from({ length: MAX_RESTREAMS + 1 }, () => dest()) }, { name: "restreams", problems: [problem("invalid-attribute", "restreams")] }],
    ["serverUrl not RTMP", { name: "x", restreams: [dest({ serverUrl: "https://example.com/app" })] }, { name: "restreams[0][serverUrl]", problems: [problem("invalid-attribute", "restreams[0][serverUrl]")] }],
    ["serverUrl missing", { name: "x", restreams: [dest(), { name: "b", streamKey: "k" }] }, { name: "restreams[1][serverUrl]" }],
    ["every broken field at once", { name: "x", restreams: [{ name: "", serverUrl: "rtmp://", streamKey: "has space", extra: 1 }] }, {
      problems: [problem("invalid-attribute", "restreams[0][extra]"), problem("invalid-attribute", "restreams[0][name]"), problem("invalid-attribute", "restreams[0][serverUrl]"), problem("invalid-attribute", "restreams[0][streamKey]")],
    }],
    ["a destination that is not an object", { name: "x", restreams: ["rtmp://a/b"] }, { name: "restreams[0]" }],
  ];
  for (const [name, body, shape] of rows) {
    test(`400: ${name}`, async () => {
      const res = await call("POST", "/live-streams", body);
      expect(res.status).toBe(400);
      expect(await json(res)).toMatchObject({ status: 400, ...shape });
    });
  }

  test("parseRestreams keeps valid destinations and trims stream keys", () => {
    expect(parseRestreams([dest({ streamKey: " k1 " })])).toEqual({ restreams: [dest({ streamKey: "k1" })], problems: [] });
    expect(parseRestreams([]).restreams).toEqual([]);
  });
});

describe("get, update, delete, complete", () => {
  test("get; another project's or environment's live stream is 404", async () => {
    const s = await create({ name: "Mine" });
    expect(await json(await call("GET", `/live-streams/${s.liveStreamId}`))).toEqual(s);
    const foreign = await call("GET", `/live-streams/${s.liveStreamId}`, undefined, otherKey);
    expect(foreign.status).toBe(404);
    expect(await json(foreign)).toMatchObject({ name: "liveStreamId", status: 404 });
    expect((await call("GET", `/live-streams/${s.liveStreamId}`, undefined, productionKey, "production")).status).toBe(404);
  });

  test("patch changes the given fields; restreams are replaced, [] clears them; bad restreams are refused", async () => {
    const s = await create({ name: "Before", restreams: [dest(), dest({ name: "Two" })] });
    const updated = await json(await call("PATCH", `/live-streams/${s.liveStreamId}`, { name: "After", public: false, restreams: [dest({ name: "Three" })] }));
    expect(updated).toMatchObject({ name: "After", public: false, streamKey: s.streamKey, restreams: [dest({ name: "Three" })] });
    const kept = await json(await call("PATCH", `/live-streams/${s.liveStreamId}`, { playerId: "plXYZ" }));
    expect(kept.restreams).toEqual([dest({ name: "Three" })]);
    expect(kept.playerId).toBe("plXYZ");
    expect((await json(await call("PATCH", `/live-streams/${s.liveStreamId}`, { restreams: [] }))).restreams).toEqual([]);
    const bad = await call("PATCH", `/live-streams/${s.liveStreamId}`, { restreams: [dest({ streamKey: "" })] });
    expect(bad.status).toBe(400);
    expect((await json(bad)).name).toBe("restreams[0][streamKey]");
    expect((await call("PATCH", "/live-streams/li0000000000000000000000", { name: "x" })).status).toBe(404);
  });

  test("complete: 202 with an empty body, even with no broadcast; 404 when unknown", async () => {
    const s = await create();
    const res = await call("PUT", `/live-streams/${s.liveStreamId}/complete`);
    expect(res.status).toBe(202);
    expect(await res.text()).toBe("");
    const unknown = await call("PUT", "/live-streams/li0000000000000000000000/complete");
    expect(unknown.status).toBe(404);
    expect((await json(unknown)).name).toBe("liveStreamId");
    expect((await call("PUT", `/live-streams/${s.liveStreamId}/complete`, undefined, otherKey)).status).toBe(404);
  });

  test("delete: 204, then 404; its stream key no longer exists", async () => {
    const s = await create();
    const res = await call("DELETE", `/live-streams/${s.liveStreamId}`);
    expect(res.status).toBe(204);
    expect((await call("GET", `/live-streams/${s.liveStreamId}`)).status).toBe(404);
    expect((await call("DELETE", `/live-streams/${s.liveStreamId}`)).status).toBe(404);
    expect((await json(await call("GET", `/live-streams?streamKey=${s.streamKey}`))).data).toEqual([]);
  });
});

describe("list", () => {
  test("filters by exact stream key and partial name, sorts, paginates", async () => {
    const { sandboxKey: k } = await app.newProject("Listing");
    const names = ["Charlie show", "alpha show", "Bravo", "delta SHOW"];
    const made: Record<string, any>[] = [];
    for (const name of names) made.push(await create({ name }, k));
    const list = async (q: string) => json(await call("GET", `/live-streams${q}`, undefined, k));
    const all = await list("");
    expect(all.data.map((s: any) => s.name)).toEqual(names);
    expect(all.pagination).toMatchObject({ currentPage: 1, pageSize: 25, pagesTotal: 1, itemsTotal: 4, currentPageItems: 4 });
    expect((await list(`?streamKey=${made[2].streamKey}`)).data.map((s: any) => s.name)).toEqual(["Bravo"]);
    expect((await list("?name=show")).data.map((s: any) => s.name)).toEqual(["Charlie show", "alpha show", "delta SHOW"]);
    expect((await list("?sortBy=name&sortOrder=asc")).data.map((s: any) => s.name)).toEqual(["alpha show", "Bravo", "Charlie show", "delta SHOW"].sort());
    expect((await list("?sortBy=createdAt&sortOrder=desc")).data.map((s: any) => s.name)).toEqual([...names].reverse());
    const page = await list("?name=show&pageSize=2&currentPage=2");
    expect(page.data.map((s: any) => s.name)).toEqual(["delta SHOW"]);
    expect(page.pagination).toMatchObject({ currentPage: 2, pageSize: 2, pagesTotal: 2, itemsTotal: 3, currentPageItems: 1 });
    expect(page.pagination.links.find((l: any) => l.rel === "first").uri).toBe("/live-streams?name=show&pageSize=2&currentPage=1");
  });

  test("400 on a bad sortBy, sortOrder, page or unknown filter", async () => {
    for (const [q, name] of [["?sortBy=title", "sortBy"], ["?sortOrder=up", "sortOrder"], ["?pageSize=0", "pageSize"], ["?color=red", "color"]]) {
      const res = await call("GET", `/live-streams${q}`);
      expect(res.status).toBe(400);
      expect((await json(res)).name).toBe(name);
    }
  });
});

describe("thumbnail", () => {
  const png = Uint8Array.from(atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="), (c) => c.charCodeAt(0));
  const upload = (id: string, bytes: Uint8Array, name = "thumb.png") => {
    const form = new FormData();
    form.append("file", new Blob([bytes as Uint8Array<ArrayBuffer>]), name);
    return fetch(`${app.urls.sandbox}/live-streams/${id}/thumbnail`, { method: "POST", headers: { authorization: `Basic ${btoa(`${key}:`)}` }, body: form });
  };

  test("upload (201, served at assets.thumbnail), delete (200, 404 after), non-image refused", async () => {
    const s = await create();
    expect((await fetch(s.assets.thumbnail)).status).toBe(404);
    const res = await upload(s.liveStreamId, png);
    expect(res.status).toBe(201);
    expect((await json(res)).liveStreamId).toBe(s.liveStreamId);
    const served = await fetch(s.assets.thumbnail);
    expect(served.status).toBe(200);
    expect(served.headers.get("content-type")).toBe("image/png");
    expect(new Uint8Array(await served.arrayBuffer())).toEqual(png);
    const bad = await upload(s.liveStreamId, new TextEncoder().encode("not an image at all"), "x.png");
    expect(bad.status).toBe(400);
    expect((await json(bad)).type).toContain("uploaded-file-invalid-file");
    const deleted = await call("DELETE", `/live-streams/${s.liveStreamId}/thumbnail`);
    expect(deleted.status).toBe(200);
    expect((await json(deleted)).liveStreamId).toBe(s.liveStreamId);
    expect((await fetch(s.assets.thumbnail)).status).toBe(404);
    expect((await upload("li0000000000000000000000", png)).status).toBe(404);
  });
});

describe("delivery before any broadcast", () => {
  test("the playlist is 404 (players wait); the player page is live; other listeners and ids are 404", async () => {
    const s = await create({ name: "Soon <live>" });
    const playlist = await fetch(s.assets.hls);
    expect(playlist.status).toBe(404);
    const page = await fetch(s.assets.player);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const html = await page.text();
    expect(html).toContain("Soon &#60;live&#62;");
    expect(html).toContain(`"hlsUrl":"${s.assets.hls}"`);
    expect(html).toContain('"live":true');
    // Delivery is by id on the stream's own environment's listener only, and never rate limited.
    expect((await fetch(s.assets.player.replace(app.urls.sandbox, app.urls.production))).status).toBe(404);
    expect((await fetch(`${app.urls.sandbox}/live/li0000000000000000000000.m3u8`)).status).toBe(404);
    expect((await fetch(`${app.urls.sandbox}/live/${s.liveStreamId}/bc0000000000000000000000/source/seg_00000.ts`)).status).toBe(404);
    expect((await fetch(s.assets.hls)).headers.get("x-ratelimit-limit")).toBeNull();
  });
});
