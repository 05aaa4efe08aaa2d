// The official api.video Node client drives /videos, /videos/search and /tags on a real server.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, rmSync } from "node:fs";
import { dirname } from "node:path";
import ApiVideoClient from "@api.video/nodejs-client";
import { makeClip } from "../fixtures/media";
import { basic, startTestAppliance, waitFor, type TestAppliance } from "../helpers";
import { encodeJobs, sourcePath, UNLIMITED, videoDir } from "./upload-helpers";

setDefaultTimeout(120_000);

let app: TestAppliance;
let client: ApiVideoClient;

beforeAll(async () => {
  app = await startTestAppliance({ env: UNLIMITED });
  // Nothing here needs encoding: keep jobs queued so they can be inspected and cost no CPU.
  await app.ctx.queue.stop();
  client = new ApiVideoClient({ apiKey: app.sandboxKey, baseUri: app.urls.sandbox });
});
afterAll(() => app.close());

/** A fresh project with its own client, so list counts do not depend on other tests. */
async function isolated() {
  const project = await app.newProject("list project");
  return { ...project, client: new ApiVideoClient({ apiKey: project.sandboxKey, baseUri: app.urls.sandbox }) };
}

const fail = (promise: Promise<unknown>) => promise.then(() => { throw new Error("expected the call to fail"); }, (e) => e);

describe("create, get, update, delete", () => {
  test("create with every field, then get it back", async () => {
    const created = await client.videos.create({
      title: "Full video",
      description: "All the fields",
      _public: false,
      panoramic: true,
      mp4Support: false,
      tags: ["one", "two"],
      metadata: [{ key: "team", value: "blue" }, { key: "stage", value: "draft" }],
      language: "fr",
    });
    expect(created.videoId).toMatch(/^vi[0-9A-Za-z]{22}$/);
    expect(created.title).toBe("Full video");
    expect(created.description).toBe("All the fields");
    expect(created._public).toBe(false);
    expect(created.panoramic).toBe(true);
    expect(created.mp4Support).toBe(false);
    expect(created.tags).toEqual(["one", "two"]);
    expect(created.metadata).toEqual([{ key: "team", value: "blue" }, { key: "stage", value: "draft" }]);
    expect(created.language).toBe("fr");
    expect(created.languageOrigin).toBe("api");
    expect(created.createdAt).toBeInstanceOf(Date);
    expect(created.source?.uri).toBe(`/videos/${created.videoId}/source`);
    expect(created.assets?.mp4).toBeUndefined();

    const got = await client.videos.get(created.videoId);
    expect(got.videoId).toBe(created.videoId);
    expect(got.title).toBe("Full video");
    expect(got._public).toBe(false);
    expect(got.tags).toEqual(["one", "two"]);
    expect(got.metadata).toEqual(created.metadata);
  });

  test("defaults: public, not panoramic, mp4 support, no language", async () => {
    const created = await client.videos.create({ title: "Plain" });
    expect(created._public).toBe(true);
    expect(created.panoramic).toBe(false);
    expect(created.mp4Support).toBe(true);
    expect(created.assets?.mp4).toBeString();
    expect(created.tags).toEqual([]);
    expect(created.metadata).toEqual([]);
    expect(created.language ?? null).toBeNull();
  });

  test("update changes the given fields; tags and metadata lists are replaced", async () => {
    const created = await client.videos.create({ title: "Before", tags: ["a", "b"], metadata: [{ key: "k1", value: "v1" }], description: "kept" });
    const updated = await client.videos.update(created.videoId, {
      title: "After",
      tags: ["c"],
      metadata: [{ key: "k2", value: "v2" }],
      _public: false,
      mp4Support: false,
      language: "de",
    });
    expect(updated.title).toBe("After");
    expect(updated.description).toBe("kept");
    expect(updated.tags).toEqual(["c"]);
    expect(updated.metadata).toEqual([{ key: "k2", value: "v2" }]);
    expect(updated._public).toBe(false);
    expect(updated.mp4Support).toBe(false);
    expect(updated.language).toBe("de");
    const got = await client.videos.get(created.videoId);
    expect(got.tags).toEqual(["c"]);
    expect(got.metadata).toEqual([{ key: "k2", value: "v2" }]);
    // Empty lists clear them.
    const cleared = await client.videos.update(created.videoId, { tags: [], metadata: [] });
    expect(cleared.tags).toEqual([]);
    expect(cleared.metadata).toEqual([]);
  });

  test("delete removes the video and its media; it then answers 404", async () => {
    const clip = await makeClip({ width: 160, height: 120, seconds: 1 });
    const created = await client.videos.create({ title: "To delete" });
    await client.videos.upload(created.videoId, clip);
    rmSync(dirname(clip), { recursive: true, force: true });
    const dir = videoDir(app, app.projectId, "sandbox", created.videoId);
    expect(existsSync(sourcePath(app, app.projectId, "sandbox", created.videoId))).toBe(true);
    expect(encodeJobs(app, created.videoId).map((j) => j.status)).toEqual(["queued"]);

    await client.videos.delete(created.videoId);
    expect(existsSync(dir)).toBe(false);
    expect(encodeJobs(app, created.videoId)).toEqual([]);
    const error = await fail(client.videos.get(created.videoId));
    expect(error.code).toBe(404);
    expect(error.problemDetails.name).toBe("videoId");
    expect((await fail(client.videos.delete(created.videoId))).code).toBe(404);
    expect((await fail(client.videos.getStatus(created.videoId))).code).toBe(404);
  });
});

describe("list filters, sorting and pagination", () => {
  let c: ApiVideoClient;
  let key: string;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    const p = await isolated();
    c = p.client;
    key = p.sandboxKey;
    const fixtures = [
      { title: "Cooking pasta", description: "An Italian recipe", tags: ["food", "italy"], metadata: [{ key: "lang", value: "it" }, { key: "level", value: "easy" }] },
      { title: "Cooking rice", description: "An Asian recipe", tags: ["food", "asia"], metadata: [{ key: "lang", value: "ja" }, { key: "level", value: "easy" }] },
      { title: "Hiking the Alps", description: "Mountains in summer", tags: ["travel", "italy"], metadata: [{ key: "lang", value: "it" }, { key: "level", value: "hard" }] },
      { title: "Bread basics", description: "Flour, water, salt", tags: ["food"], metadata: [{ key: "level", value: "easy" }] },
      { title: "Álpine flowers", description: "Botany for walkers", tags: ["Été", "travel"], metadata: [] },
    ];
    for (const f of fixtures) ids[f.title] = (await c.videos.create(f)).videoId;
  });

  const titles = (page: { data: { title?: string }[] }) => page.data.map((v) => v.title);

  test("no filter lists everything in creation order", async () => {
    const all = await c.videos.list();
    expect(titles(all)).toEqual(["Cooking pasta", "Cooking rice", "Hiking the Alps", "Bread basics", "Álpine flowers"]);
    expect(all.pagination.itemsTotal).toBe(5);
    expect(all.pagination.pagesTotal).toBe(1);
  });

  const cases: { name: string; args: Parameters<ApiVideoClient["videos"]["list"]>[0]; expected: string[] }[] = [
    { name: "title substring, case-blind", args: { title: "cooking" }, expected: ["Cooking pasta", "Cooking rice"] },
    { name: "title substring inside a word", args: { title: "ice" }, expected: ["Cooking rice"] },
    { name: "title substring, accent-blind", args: { title: "alpine" }, expected: ["Álpine flowers"] },
    { name: "title substring, case-blind beyond ASCII", args: { title: "ÁLPINE" }, expected: ["Álpine flowers"] },
    { name: "description substring", args: { description: "recipe" }, expected: ["Cooking pasta", "Cooking rice"] },
    { name: "one tag", args: { tags: ["italy"] }, expected: ["Cooking pasta", "Hiking the Alps"] },
    { name: "all tags must match", args: { tags: ["food", "italy"] }, expected: ["Cooking pasta"] },
    { name: "a tag nobody has", args: { tags: ["food", "nope"] }, expected: [] },
    { name: "one metadata pair", args: { metadata: { level: "easy" } }, expected: ["Cooking pasta", "Cooking rice", "Bread basics"] },
    { name: "all metadata pairs must match", args: { metadata: { level: "easy", lang: "it" } }, expected: ["Cooking pasta"] },
    { name: "metadata value must match exactly", args: { metadata: { lang: "i" } }, expected: [] },
    { name: "filters combine", args: { title: "Cooking", tags: ["asia"], metadata: { level: "easy" } }, expected: ["Cooking rice"] },
    // Case- and accent-blind: "Álpine" sorts among the a's, not after every ASCII letter.
    { name: "sortBy title asc", args: { sortBy: "title", sortOrder: "asc" }, expected: ["Álpine flowers", "Bread basics", "Cooking pasta", "Cooking rice", "Hiking the Alps"] },
    { name: "sortBy title desc", args: { sortBy: "title", sortOrder: "desc" }, expected: ["Hiking the Alps", "Cooking rice", "Cooking pasta", "Bread basics", "Álpine flowers"] },
    { name: "sortBy createdAt desc", args: { sortBy: "createdAt", sortOrder: "desc" }, expected: ["Álpine flowers", "Bread basics", "Hiking the Alps", "Cooking rice", "Cooking pasta"] },
    { name: "page 1 of size 2", args: { pageSize: 2, currentPage: 1 }, expected: ["Cooking pasta", "Cooking rice"] },
    { name: "page 3 of size 2", args: { pageSize: 2, currentPage: 3 }, expected: ["Álpine flowers"] },
    { name: "a page past the end is empty", args: { pageSize: 2, currentPage: 4 }, expected: [] },
  ];
  for (const { name, args, expected } of cases) {
    test(name, async () => {
      expect(titles(await c.videos.list(args))).toEqual(expected);
    });
  }

  test("pagination object and links keep the filters", async () => {
    const page = await c.videos.list({ tags: ["food"], pageSize: 1, currentPage: 2 });
    expect(page.pagination.currentPage).toBe(2);
    expect(page.pagination.pageSize).toBe(1);
    expect(page.pagination.pagesTotal).toBe(3);
    expect(page.pagination.itemsTotal).toBe(3);
    expect(page.pagination.currentPageItems).toBe(1);
    const rels = page.pagination.links.map((l) => l.rel);
    expect(rels).toEqual(["self", "first", "previous", "next", "last"]);
    for (const link of page.pagination.links) {
      expect(link.uri).toStartWith("/videos?");
      expect(decodeURIComponent(link.uri!)).toContain("tags[]=food");
    }
  });

  test("sortBy updatedAt puts the last-updated video last", async () => {
    // updatedAt has one-second resolution: wait until the clock moved past the creations.
    const latest = Math.max(...(await c.videos.list()).data.map((v) => v.updatedAt!.getTime()));
    await waitFor("the next second", () => Date.now() >= latest + 1000);
    await c.videos.update(ids["Cooking pasta"], { description: "An Italian recipe, revised" });
    const page = await c.videos.list({ sortBy: "updatedAt", sortOrder: "desc", pageSize: 1 });
    expect(titles(page)).toEqual(["Cooking pasta"]);
  });

  test("bad pagination and sort values are 400 with the attribute named", async () => {
    for (const [query, name] of [["currentPage=0", "currentPage"], ["pageSize=101", "pageSize"], ["sortBy=size", "sortBy"], ["sortOrder=up", "sortOrder"]]) {
      const res = await app.api(key, "GET", `/videos?${query}`);
      expect(res.status).toBe(400);
      expect(res.headers.get("content-type")).toBe("application/json");
      expect(((await res.json()) as { name: string }).name).toBe(name);
    }
  });

  test("GET /videos/search: free text over title, description and tags, with the list filters", async () => {
    const search = async (query: string) => {
      const res = await app.api(key, "GET", `/videos/search?${query}`);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("application/json");
      return (await res.json()) as { data: { title: string }[]; pagination: { itemsTotal: number; links: { rel: string; uri: string }[] } };
    };
    const rows: [string, string[]][] = [
      ["q=pasta", ["Cooking pasta"]],
      ["q=RECIPE", ["Cooking pasta", "Cooking rice"]],
      ["q=travel", ["Hiking the Alps", "Álpine flowers"]],
      ["q=cooking%20asian", ["Cooking rice"]],
      ["q=flour", ["Bread basics"]],
      ["q=food&tags[]=italy", ["Cooking pasta"]],
      ["q=food&sortBy=title&sortOrder=desc", ["Cooking rice", "Cooking pasta", "Bread basics"]],
      ["q=zzz", []],
      // Tags are matched one by one, not as the JSON text they are stored in.
      ["q=%5B", []],
      ["q=%22%2C%22", []],
      ["q=a%22", []],
      ["q=ITALY", ["Cooking pasta", "Hiking the Alps"]],
      // Case and accents folded beyond ASCII, in titles and tags alike (as /tags does).
      ["q=alpine", ["Álpine flowers"]],
      ["q=%C3%81LPINE", ["Álpine flowers"]],
      ["q=ete", ["Álpine flowers"]],
      ["q=%C3%89T%C3%89", ["Álpine flowers"]],
      ["", ["Cooking pasta", "Cooking rice", "Hiking the Alps", "Bread basics", "Álpine flowers"]],
    ];
    for (const [query, expected] of rows) expect([query, (await search(query)).data.map((v) => v.title)]).toEqual([query, expected]);
    const paged = await search("q=food&pageSize=2");
    expect(paged.pagination.itemsTotal).toBe(3);
    expect(paged.pagination.links.find((l) => l.rel === "next")?.uri).toBe("/videos/search?q=food&pageSize=2&currentPage=2");
  });

  test("GET /tags: counts, partial accent- and case-blind value filter, sort by videoCount", async () => {
    const all = await c.tags.list({});
    expect(all.data!.map((t) => [t.value, t.videoCount])).toEqual([
      ["asia", 1], ["Été", 1], ["food", 3], ["italy", 2], ["travel", 2],
    ].sort((a, b) => String(a[0]).localeCompare(String(b[0]))));
    expect(all.pagination!.itemsTotal).toBe(5);
    expect((await c.tags.list({ value: "ETE" })).data!.map((t) => t.value)).toEqual(["Été"]);
    expect((await c.tags.list({ value: "ta" })).data!.map((t) => t.value)).toEqual(["italy"]);
    expect((await c.tags.list({ value: "A" })).data!.map((t) => t.value)).toEqual(["asia", "italy", "travel"]);
    const byCount = await c.tags.list({ sortBy: "videoCount", sortOrder: "desc" });
    // Ties are broken by value, in the same direction.
    expect(byCount.data!.map((t) => t.value)).toEqual(["food", "travel", "italy", "Été", "asia"]);
    expect((await c.tags.list({ sortBy: "videoCount" })).data!.map((t) => t.value)).toEqual(["asia", "Été", "italy", "travel", "food"]);
    const paged = await c.tags.list({ sortBy: "videoCount", sortOrder: "desc", pageSize: 2, currentPage: 2 });
    expect(paged.data!.map((t) => t.value)).toEqual(["italy", "Été"]);
    expect(paged.pagination!.pagesTotal).toBe(3);
  });
});

describe("validation", () => {
  const rows: { name: string; body: unknown; kind: string; attribute: string }[] = [
    { name: "missing title", body: { description: "no title" }, kind: "attribute-required", attribute: "title" },
    { name: "tags not an array", body: { title: "t", tags: "food" }, kind: "invalid-attribute", attribute: "tags" },
    { name: "metadata not an array", body: { title: "t", metadata: { k: "v" } }, kind: "invalid-attribute", attribute: "metadata" },
    { name: "language malformed", body: { title: "t", language: "en_US!" }, kind: "invalid-attribute", attribute: "language" },
    { name: "language unknown", body: { title: "t", language: "xx" }, kind: "invalid-attribute", attribute: "language" },
    { name: "language empty", body: { title: "t", language: "" }, kind: "invalid-attribute", attribute: "language" },
    { name: "empty title", body: { title: "" }, kind: "invalid-attribute", attribute: "title" },
    { name: "a tag not a string", body: { title: "t", tags: ["a", 1] }, kind: "invalid-attribute", attribute: "tags[1]" },
    { name: "metadata without value", body: { title: "t", metadata: [{ key: "k" }] }, kind: "attribute-required", attribute: "metadata[0][value]" },
    { name: "public not a boolean", body: { title: "t", public: "yes" }, kind: "invalid-attribute", attribute: "public" },
    { name: "unknown attribute", body: { title: "t", colour: "red" }, kind: "invalid-attribute", attribute: "colour" },
  ];
  for (const { name, body, kind, attribute } of rows) {
    test(`POST /videos: ${name} → 400 ${kind} (${attribute})`, async () => {
      const res = await app.api(app.sandboxKey, "POST", "/videos", body);
      expect(res.status).toBe(400);
      expect(res.headers.get("content-type")).toBe("application/json");
      const problem = (await res.json()) as { type: string; name: string; status: number };
      expect(problem.type).toEndWith(`/reference/${kind}`);
      expect(problem.name).toBe(attribute);
      expect(problem.status).toBe(400);
    });
  }

  test("PATCH with a bad language or tags is 400 and changes nothing", async () => {
    const created = await client.videos.create({ title: "Stable", tags: ["x"] });
    for (const body of [{ language: "klingon" }, { language: "" }, { tags: "y" }, { title: "" }, { colour: "red" }]) {
      const res = await app.api(app.sandboxKey, "PATCH", `/videos/${created.videoId}`, body);
      expect(res.status).toBe(400);
    }
    const got = await client.videos.get(created.videoId);
    expect(got.title).toBe("Stable");
    expect(got.tags).toEqual(["x"]);
    expect(got.language ?? null).toBeNull();
    // null clears a language.
    await client.videos.update(created.videoId, { language: "en" });
    const cleared = await app.api(app.sandboxKey, "PATCH", `/videos/${created.videoId}`, { language: null });
    expect(((await cleared.json()) as { language: string | null; languageOrigin: string | null })).toMatchObject({ language: null, languageOrigin: null });
  });

  test("the client surfaces a validation problem", async () => {
    const error = await fail(client.videos.create({ title: "t", language: "xx" as never }));
    expect(error.code).toBe(400);
    expect(error.problemDetails.name).toBe("language");
  });
});

describe("scoping", () => {
  test("another project's or environment's video is 404 naming videoId", async () => {
    const other = await isolated();
    const theirs = await other.client.videos.create({ title: "Not yours" });
    const calls: [string, () => Promise<unknown>][] = [
      ["get", () => client.videos.get(theirs.videoId)],
      ["update", () => client.videos.update(theirs.videoId, { title: "mine" })],
      ["delete", () => client.videos.delete(theirs.videoId)],
      ["status", () => client.videos.getStatus(theirs.videoId)],
    ];
    for (const [what, call] of calls) {
      const error = await fail(call());
      expect([what, error.code, error.problemDetails?.name]).toEqual([what, 404, "videoId"]);
    }
    // The same project's production key does not see its sandbox video either.
    const prod = await fetch(`${app.urls.production}/videos/${theirs.videoId}`, { headers: { authorization: basic(other.productionKey) } });
    expect(prod.status).toBe(404);
    // An upload to it is refused before any byte is stored.
    const body = new FormData();
    body.append("file", new Blob([new Uint8Array(1024)]), "x.mp4");
    const upload = await fetch(`${app.urls.sandbox}/videos/${theirs.videoId}/source`, { method: "POST", headers: { authorization: basic(app.sandboxKey) }, body });
    expect(upload.status).toBe(404);
    expect(((await upload.json()) as { name: string }).name).toBe("videoId");
    expect((await other.client.videos.get(theirs.videoId)).title).toBe("Not yours");
  });
});
