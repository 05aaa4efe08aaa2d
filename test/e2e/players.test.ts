// Player themes end to end with the official Node client: CRUD with api.video's defaults, list
// sorting and pages, logos (upload, refusals, delivery, deletion), another project's ids, and the
// theme reaching the VOD and live player pages.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import ApiVideoClient from "@api.video/nodejs-client";
import type { Clock } from "../../src/clock";
import { mediaTempDir } from "../fixtures/media";
import { basic, startTestAppliance, type TestAppliance } from "../helpers";
import { makeImage, NO_RATE_LIMITS } from "./vod-support";

setDefaultTimeout(60_000);

// A clock the tests move, so createdAt and updatedAt order themes without waiting.
let nowMs = Date.parse("2026-11-22T10:00:00Z");
const clock: Clock = { now: () => new Date(nowMs) };
const tick = () => (nowMs += 1000);

let app: TestAppliance;
let project: { projectId: string; sandboxKey: string; productionKey: string };
let client: ApiVideoClient;
let other: ApiVideoClient;

beforeAll(async () => {
  app = await startTestAppliance({ env: NO_RATE_LIMITS, clock });
  project = await app.newProject("Players");
  client = new ApiVideoClient({ apiKey: project.sandboxKey, baseUri: app.urls.sandbox });
  other = new ApiVideoClient({ apiKey: (await app.newProject("Other")).sandboxKey, baseUri: app.urls.sandbox });
});
afterAll(() => app?.close());

const fail = (promise: Promise<unknown>) => promise.then(() => { throw new Error("expected the call to fail"); }, (e) => e);
const DEFAULTS = {
  text: "rgba(255, 255, 255, 1)", link: "rgba(255, 255, 255, 1)", linkHover: "rgba(255, 255, 255, 1)", linkActive: "rgba(255, 255, 255, 1)",
  trackPlayed: "rgba(88, 131, 255, .95)", trackUnplayed: "rgba(255, 255, 255, .35)", trackBackground: "rgba(255, 255, 255, .2)",
  backgroundTop: "rgba(0, 0, 0, .7)", backgroundBottom: "rgba(0, 0, 0, .7)", backgroundText: "rgba(255, 255, 255, 1)",
  enableApi: true, enableControls: true, forceAutoplay: false, hideTitle: false, forceLoop: false,
};
const logoPath = (playerId: string) => [project.projectId, "sandbox", "players", playerId, "logo"];
/** A raw multipart logo upload, for what the client cannot send. */
const postLogo = (playerId: string, form: FormData, key = project.sandboxKey) =>
  fetch(`${app.urls.sandbox}/players/${playerId}/logo`, { method: "POST", headers: { authorization: basic(key) }, body: form });
const formOf = (bytes: Uint8Array<ArrayBuffer>, name: string, link?: string) => {
  const form = new FormData();
  form.append("file", new Blob([bytes]), name);
  if (link !== undefined) form.append("link", link);
  return form;
};

describe("create, get, update, delete", () => {
  test("create with nothing gets every default, a pl id and ATOM dates", async () => {
    const res = await client.playerThemes.createWithResponseHeaders({});
    expect(res.headers["x-ratelimit-limit"]).toBeDefined();
    const theme = res.body;
    expect(theme.playerId).toMatch(/^pl[0-9A-Za-z]{22}$/);
    expect(theme).toMatchObject({ name: "", ...DEFAULTS, assets: {} });
    expect(theme.createdAt).toBeInstanceOf(Date);
    const raw = (await (await app.api(project.sandboxKey, "GET", `/players/${theme.playerId}`)).json()) as Record<string, string>;
    expect(raw.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/);
  });

  test("create with every field, get it, update some, delete it", async () => {
    const created = await client.playerThemes.create({
      name: "Brand", text: "rgba(255, 255, 255, .95)", link: "rgba(255, 0, 0, .95)", linkHover: "#fff", linkActive: "rgb(255, 0, 0)",
      trackPlayed: "#12ab9f", trackUnplayed: "rgba(255, 255, 255, .1)", trackBackground: "rgba(0, 0, 0, 0)",
      backgroundTop: "rgba(72, 4, 45, 1)", backgroundBottom: "rgba(94, 95, 89, 1)", backgroundText: "rgba(255, 255, 255, .95)",
      enableApi: false, enableControls: false, forceAutoplay: true, hideTitle: true, forceLoop: true,
    });
    expect(created).toMatchObject({ name: "Brand", link: "rgba(255, 0, 0, .95)", trackPlayed: "#12ab9f", enableControls: false, forceLoop: true });
    const got = await client.playerThemes.getWithResponseHeaders(created.playerId);
    expect(got.headers["content-type"]).toBe("application/json");
    expect(got.body).toEqual(created);

    tick();
    const updated = await client.playerThemes.update(created.playerId, { name: "Brand 2", link: "#00ff00", hideTitle: false });
    expect(updated).toMatchObject({ name: "Brand 2", link: "#00ff00", hideTitle: false, text: "rgba(255, 255, 255, .95)", forceLoop: true });
    expect(updated.updatedAt!.getTime()).toBeGreaterThan(updated.createdAt!.getTime());
    const again = await client.playerThemes.updateWithResponseHeaders(created.playerId, { forceAutoplay: false });
    expect(again.body).toMatchObject({ name: "Brand 2", forceAutoplay: false, link: "#00ff00" });

    await client.playerThemes.delete(created.playerId);
    const error = await fail(client.playerThemes.get(created.playerId));
    expect(error.code).toBe(404);
    expect(error.problemDetails).toMatchObject({ type: "https://docs.api.video/reference/resource-not-found", name: "playerId" });
    const second = await client.playerThemes.create({});
    const res = await client.playerThemes.deleteWithResponseHeaders(second.playerId);
    expect(res.headers["x-ratelimit-remaining"]).toBeDefined();
    expect((await fail(client.playerThemes.deleteWithResponseHeaders(second.playerId))).code).toBe(404);
  });

  test("bad colours, booleans and names are 400 invalid-attribute, every one named", async () => {
    const res = await app.api(project.sandboxKey, "POST", "/players", {
      name: "x".repeat(101), text: "junk", link: "rgb(1, 2)", backgroundTop: "rgba(0,0,0,1);background:url(//evil)", hideTitle: "yes",
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { type: string; name: string; problems: { type: string; name: string }[] };
    expect(body.type).toBe("https://docs.api.video/reference/invalid-attribute");
    expect(body.problems.map((p) => p.name)).toEqual(["name", "text", "link", "backgroundTop", "hideTitle"]);
    const patch = await fail(client.playerThemes.update((await client.playerThemes.create({})).playerId, { trackPlayed: "blue-ish" }));
    expect(patch.code).toBe(400);
    expect(patch.problemDetails.name).toBe("trackPlayed");
    const unknown = await app.api(project.sandboxKey, "POST", "/players", { colour: "#fff" });
    expect(unknown.status).toBe(400);
  });
});

describe("list", () => {
  test("sortBy name, createdAt, updatedAt, sortOrder, pages", async () => {
    const { sandboxKey } = await app.newProject("Listing");
    const own = new ApiVideoClient({ apiKey: sandboxKey, baseUri: app.urls.sandbox });
    const ids: Record<string, string> = {};
    for (const name of ["b", "a", "c"]) {
      tick();
      ids[name] = (await own.playerThemes.create({ name })).playerId;
    }
    tick();
    await own.playerThemes.update(ids.b, { forceLoop: true });
    const names = async (args: Parameters<typeof own.playerThemes.list>[0]) => (await own.playerThemes.list(args)).data.map((p) => p.name);
    expect(await names({})).toEqual(["b", "a", "c"]);
    expect(await names({ sortBy: "name" })).toEqual(["a", "b", "c"]);
    expect(await names({ sortBy: "name", sortOrder: "desc" })).toEqual(["c", "b", "a"]);
    expect(await names({ sortBy: "createdAt", sortOrder: "desc" })).toEqual(["c", "a", "b"]);
    expect(await names({ sortBy: "updatedAt", sortOrder: "desc" })).toEqual(["b", "c", "a"]);

    const page = await own.playerThemes.listWithResponseHeaders({ sortBy: "name", pageSize: 2, currentPage: 2 });
    expect(page.headers["x-ratelimit-limit"]).toBeDefined();
    expect(page.body.data.map((p) => p.name)).toEqual(["c"]);
    expect(page.body.pagination).toMatchObject({ currentPage: 2, pageSize: 2, pagesTotal: 2, itemsTotal: 3, currentPageItems: 1 });
    expect(page.body.pagination.links.map((l) => l.rel)).toEqual(["self", "first", "previous", "last"]);
    expect(page.body.pagination.links[0].uri).toBe("/players?sortBy=name&currentPage=2&pageSize=2");

    for (const query of ["sortBy=title", "sortOrder=up", "pageSize=0"]) {
      expect((await app.api(sandboxKey, "GET", `/players?${query}`)).status).toBe(400);
    }
  });
});

describe("logo", () => {
  let playerId: string;
  beforeAll(async () => {
    playerId = (await client.playerThemes.create({ name: "With logo" })).playerId;
  });

  test("a PNG with a link: 201, assets name the served logo and the link", async () => {
    const png = await makeImage("png", "red", "200x100");
    const res = await client.playerThemes.uploadLogoWithResponseHeaders(playerId, png, "https://example.com/brand");
    expect(res.headers["x-ratelimit-limit"]).toBeDefined();
    const logo = `${app.urls.sandbox}/assets/players/${playerId}/logo`;
    expect(res.body.assets).toEqual({ logo, link: "https://example.com/brand" });
    expect((await client.playerThemes.get(playerId)).assets).toEqual({ logo, link: "https://example.com/brand" });
    const served = await fetch(logo);
    expect(served.status).toBe(200);
    expect(served.headers.get("content-type")).toBe("image/png");
    expect(served.headers.get("access-control-allow-origin")).toBe("*");
    expect(await served.bytes()).toEqual(await Bun.file(png).bytes());
    // Delivery is per listener: the production one does not know a sandbox theme.
    expect((await fetch(`${app.urls.production}/assets/players/${playerId}/logo`)).status).toBe(404);
  });

  test("a JPEG replaces it at the same URL; without a link there is none", async () => {
    const jpg = await makeImage("jpg", "blue", "120x60");
    const res = await postLogo(playerId, formOf(await Bun.file(jpg).bytes(), "logo.jpg"));
    expect(res.status).toBe(201);
    const body = (await res.json()) as { assets: Record<string, string> };
    expect(body.assets).toEqual({ logo: `${app.urls.sandbox}/assets/players/${playerId}/logo` });
    const served = await fetch(body.assets.logo);
    expect(served.headers.get("content-type")).toBe("image/jpeg");
    expect(await served.bytes()).toEqual(await Bun.file(jpg).bytes());
  });

  test("refusals: too heavy, too wide, too tall, not jpeg/png, no file, bad link; the logo stays", async () => {
    const before = await (await fetch(`${app.urls.sandbox}/assets/players/${playerId}/logo`)).bytes();
    const png = await Bun.file(await makeImage("png", "green", "64x32")).bytes();
    const heavy = new Uint8Array(100 * 1024 + 1);
    heavy.set(png);
    const cases: [FormData, string, string][] = [
      [formOf(heavy, "big.png"), "uploaded-file-too-large", "file"],
      [formOf(await Bun.file(await makeImage("png", "red", "202x50")).bytes(), "wide.png"), "uploaded-file-invalid-file", "file"],
      [formOf(await Bun.file(await makeImage("jpg", "red", "100x102")).bytes(), "tall.jpg"), "uploaded-file-invalid-file", "file"],
      [formOf(new TextEncoder().encode("GIF89a\x01\x00\x01\x00"), "logo.gif"), "uploaded-file-extension-invalid", "file"],
      [formOf(new TextEncoder().encode("just some text"), "logo.png"), "uploaded-file-extension-invalid", "file"],
      [formOf(png, "ok.png", "javascript:alert(1)"), "invalid-attribute", "link"],
      [(() => { const f = new FormData(); f.append("link", "https://example.com"); return f; })(), "uploaded-file-no-file", "file"],
    ];
    for (const [form, kind, name] of cases) {
      const res = await postLogo(playerId, form);
      const body = (await res.json()) as { type: string; name: string; detail?: string };
      expect({ status: res.status, type: body.type, name: body.name }).toEqual({ status: 400, type: `https://docs.api.video/reference/${kind}`, name });
      expect(body.detail).toBeTruthy();
    }
    const wide = await postLogo(playerId, formOf(await Bun.file(await makeImage("png", "red", "202x50")).bytes(), "wide.png"));
    expect(((await wide.json()) as { detail: string }).detail).toContain("200×100");
    // The Node client's refusal surfaces the same way.
    const dir = mediaTempDir();
    writeFileSync(join(dir, "logo.png"), "not an image");
    expect((await fail(client.playerThemes.uploadLogo(playerId, join(dir, "logo.png"), "https://example.com"))).code).toBe(400);
    expect(await (await fetch(`${app.urls.sandbox}/assets/players/${playerId}/logo`)).bytes()).toEqual(before);
    expect(readdirSync(join(app.dataDir, "media", ".tmp"))).toEqual([]); // every refused upload's temp file is gone
  });

  test("deleteLogo: 204, the file and the assets go", async () => {
    expect(app.ctx.storage.size(logoPath(playerId))).not.toBeNull();
    await client.playerThemes.deleteLogo(playerId);
    expect(app.ctx.storage.size(logoPath(playerId))).toBeNull();
    expect((await client.playerThemes.get(playerId)).assets).toEqual({});
    expect((await fetch(`${app.urls.sandbox}/assets/players/${playerId}/logo`)).status).toBe(404);
    const res = await client.playerThemes.deleteLogoWithResponseHeaders(playerId);
    expect(res.headers["x-ratelimit-limit"]).toBeDefined();
  });

  test("deleting the player removes its logo file", async () => {
    const id = (await client.playerThemes.create({})).playerId;
    await client.playerThemes.uploadLogo(id, await makeImage("png", "red", "20x10"), "https://example.com");
    expect(app.ctx.storage.size(logoPath(id))).not.toBeNull();
    await client.playerThemes.delete(id);
    expect(app.ctx.storage.size(logoPath(id))).toBeNull();
    expect((await fetch(`${app.urls.sandbox}/assets/players/${id}/logo`)).status).toBe(404);
  });
});

test("another project's or environment's player is 404 everywhere", async () => {
  const mine = await client.playerThemes.create({ name: "Mine" });
  const png = await makeImage("png", "red", "20x10");
  // Thunks, so each call starts only once its rejection has a handler.
  const calls = [
    () => other.playerThemes.get(mine.playerId),
    () => other.playerThemes.update(mine.playerId, { name: "Theirs" }),
    () => other.playerThemes.uploadLogo(mine.playerId, png, "https://example.com"),
    () => other.playerThemes.deleteLogo(mine.playerId),
    () => other.playerThemes.delete(mine.playerId),
  ];
  for (const call of calls) {
    const error = await fail(call());
    expect(error.code).toBe(404);
    expect(error.problemDetails.name).toBe("playerId");
  }
  expect((await other.playerThemes.list()).data.map((p) => p.playerId)).not.toContain(mine.playerId);
  const production = new ApiVideoClient({ apiKey: project.productionKey, baseUri: app.urls.production });
  expect((await fail(production.playerThemes.get(mine.playerId))).code).toBe(404);
  expect((await client.playerThemes.get(mine.playerId)).name).toBe("Mine");
});

describe("player pages apply the theme", () => {
  /** The page's config JSON (the argument of the inline script). */
  const pageConfig = (html: string) => JSON.parse(/\}\)\((\{.*\})\);<\/script>/s.exec(html)![1]) as { theme: Record<string, unknown> };

  test("a video's page carries the colours, flags and logo; unknown and foreign ids fall back to the defaults", async () => {
    const theme = await client.playerThemes.create({ link: "rgba(255, 0, 0, .95)", hideTitle: true, forceLoop: true });
    await client.playerThemes.uploadLogo(theme.playerId, await makeImage("png", "red", "40x20"), "https://example.com/home");
    const video = await client.videos.create({ title: "Themed", playerId: theme.playerId });
    const html = await (await fetch(`${app.urls.sandbox}/vod/${video.videoId}`)).text();
    expect(pageConfig(html).theme).toMatchObject({ link: "rgba(255, 0, 0, .95)", hideTitle: true, forceLoop: true, enableControls: true });
    expect(html).toContain(`<a id="logo" href="https://example.com/home" target="_blank" rel="noopener noreferrer"><img src="${app.urls.sandbox}/assets/players/${theme.playerId}/logo" alt=""></a>`);
    expect(html).toContain(`img-src ${app.urls.sandbox}`);

    const foreign = await other.playerThemes.create({ link: "#000" });
    for (const playerId of ["pl4f4ferf5erfr5zed4fsdd", foreign.playerId]) {
      const plain = await client.videos.create({ title: "Plain", playerId });
      expect(plain.playerId).toBe(playerId);
      const page = await (await fetch(`${app.urls.sandbox}/vod/${plain.videoId}`)).text();
      expect(pageConfig(page).theme).toEqual({});
      expect(page).not.toContain(`id="logo"`);
    }

    // A deleted theme leaves its videos with the default look.
    await client.playerThemes.delete(theme.playerId);
    expect(pageConfig(await (await fetch(`${app.urls.sandbox}/vod/${video.videoId}`)).text()).theme).toEqual({});
  });

  test("a live stream's page too", async () => {
    const theme = await client.playerThemes.create({ backgroundText: "#ff0000", enableControls: false });
    const live = await client.liveStreams.create({ name: "Themed live", playerId: theme.playerId });
    const html = await (await fetch(`${app.urls.sandbox}/live/${live.liveStreamId}`)).text();
    expect(pageConfig(html).theme).toMatchObject({ backgroundText: "#ff0000", enableControls: false });
  });
});
