// The summary state machine on a real server with no engines configured: transcripts come from
// captions and the built-in extractive summariser writes the source. Every 409 rule, through raw
// HTTP (exact bodies) and the official Node client.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import ApiVideoClient from "@api.video/nodejs-client";
import { makeClip } from "../fixtures/media";
import { TRANSCRIPTS, transcriptVtt } from "../fixtures/transcripts";
import { and, eq, inArray } from "drizzle-orm";
import { jobs } from "../../src/db/schema";
import { startTestAppliance, waitFor, type TestAppliance } from "../helpers";
import { NO_RATE_LIMITS, uploadSource, waitEncoded } from "./vod-support";

/** True while a job of `kind` is queued or running. */
const jobBusy = (a: TestAppliance, kind: string) =>
  !!a.ctx.db.select({ id: jobs.id }).from(jobs).where(and(eq(jobs.kind, kind), inArray(jobs.status, ["queued", "running"]))).get();

setDefaultTimeout(120_000);

interface Summary { summaryId: string; videoId: string; origin: string; sourceStatus: string; createdAt: string; updatedAt: string; failureReason: string | null }

let app: TestAppliance;
let client: ApiVideoClient;
let key: string;
let clip: string;
let silentClip: string;

beforeAll(async () => {
  [clip, silentClip] = await Promise.all([makeClip({ width: 160, height: 120, seconds: 1 }), makeClip({ width: 160, height: 120, seconds: 1, audio: false })]);
  app = await startTestAppliance({ env: NO_RATE_LIMITS });
  key = app.sandboxKey;
  client = new ApiVideoClient({ apiKey: key, baseUri: app.urls.sandbox });
});
afterAll(() => app?.close());

const api = async (method: string, path: string, body?: unknown) => {
  const res = await app.api(key, method, path, body);
  const text = await res.text();
  return { status: res.status, type: res.headers.get("content-type"), body: text ? JSON.parse(text) : null };
};

const CONFLICT = {
  type: "https://docs.api.video/reference/summary-already-exists",
  title: "A summary already exists or is being created on this video.",
  status: 409,
  detail: "You can delete the existing summary and generate a new one.",
};

/** A video; with `source` its clip is uploaded and encoded; with `captions` an English caption first. */
async function video(opts: { source?: string; captions?: string; fields?: Record<string, unknown> } = {}): Promise<string> {
  const created = await api("POST", "/videos", { title: "talk", ...opts.fields });
  expect(created.status).toBe(201);
  const id = created.body.videoId as string;
  if (opts.captions) await client.captions.upload(id, "en", Buffer.from(opts.captions));
  if (opts.source) {
    await uploadSource(app, key, "sandbox", id, opts.source);
    await waitEncoded(app, key, id, "sandbox");
  }
  return id;
}

const summaryOf = async (videoId: string): Promise<Summary | undefined> => (await api("GET", `/summaries?videoId=${videoId}`)).body.data[0];
const settled = (videoId: string) => waitFor(`summary of ${videoId} settled`, async () => {
  const s = await summaryOf(videoId);
  return s && s.sourceStatus !== "waiting" ? s : null;
});

describe("api summaries (no origin)", () => {
  test("missing → PATCH source → completed; 409s while it holds a source; DELETE source frees the video", async () => {
    const videoId = await video();
    const created = await api("POST", "/summaries", { videoId });
    expect(created.status).toBe(201);
    expect(created.type).toBe("application/json");
    expect(created.body).toEqual({
      summaryId: expect.stringMatching(/^summary_[0-9A-Za-z]{22}$/), createdAt: expect.stringMatching(/\+00:00$/), updatedAt: created.body.createdAt,
      videoId, origin: "api", sourceStatus: "missing", failureReason: null,
    });
    const id = created.body.summaryId;
    expect(await api("GET", `/summaries/${id}/source`)).toMatchObject({ status: 200, body: {} });

    // Nothing is generated for an api summary, and another one may replace it while it has no source.
    const again = await api("POST", "/summaries", { videoId });
    expect(again.status).toBe(201);
    expect(again.body.summaryId).not.toBe(id);
    expect((await api("GET", `/summaries/${id}/source`)).status).toBe(404);
    const sid = again.body.summaryId;

    const patched = await api("PATCH", `/summaries/${sid}/source`, { abstract: "A hand-written outline of this talk about composting at home, written by its editor for the catalogue page.", takeaways: ["One.", "Two.", "Three."] });
    expect(patched).toMatchObject({ status: 201, body: { abstract: expect.stringContaining("hand-written"), takeaways: ["One.", "Two.", "Three."] } });
    expect(await summaryOf(videoId)).toMatchObject({ summaryId: sid, origin: "api", sourceStatus: "completed" });
    // Partial PATCH keeps the other part.
    expect((await api("PATCH", `/summaries/${sid}/source`, { takeaways: ["Uno.", "Dos.", "Tres."] })).body).toMatchObject({ abstract: expect.stringContaining("hand-written"), takeaways: ["Uno.", "Dos.", "Tres."] });

    // A completed summary holds the video: generation is refused, by POST and by video update.
    expect(await api("POST", "/summaries", { videoId, origin: "auto" })).toMatchObject({ status: 409, body: { ...CONFLICT, name: "videoId" } });
    expect(await api("POST", "/summaries", { videoId })).toMatchObject({ status: 409, body: { ...CONFLICT, name: "videoId" } });
    const refused = await api("PATCH", `/videos/${videoId}`, { title: "renamed", transcriptSummary: true });
    expect(refused).toMatchObject({ status: 409, body: { ...CONFLICT, name: "transcriptSummary" } });
    expect((await api("GET", `/videos/${videoId}`)).body.title).toBe("talk"); // the refused update changed nothing
    expect((await api("PATCH", `/videos/${videoId}`, { transcriptSummaryAttributes: ["abstract"] })).status).toBe(409);
    // Updates that do not ask for a summary go through.
    expect((await api("PATCH", `/videos/${videoId}`, { title: "renamed", transcriptSummary: false })).status).toBe(200);

    // DELETE source: 204, the summary is missing again and a generation may start.
    expect((await app.api(key, "DELETE", `/summaries/${sid}/source`)).status).toBe(204);
    expect(await summaryOf(videoId)).toMatchObject({ summaryId: sid, sourceStatus: "missing" });
    expect((await api("GET", `/summaries/${sid}/source`)).body).toEqual({});
    expect((await api("POST", "/summaries", { videoId, origin: "auto" })).status).toBe(201);
  });

  test("validation and scoping", async () => {
    const videoId = await video();
    expect(await api("POST", "/summaries", { videoId: "vi0000000000000000000000" })).toMatchObject({ status: 404, body: { name: "videoId" } });
    expect(await api("POST", "/summaries", {})).toMatchObject({ status: 400, body: { name: "videoId", type: expect.stringContaining("attribute-required") } });
    expect(await api("POST", "/summaries", { videoId, origin: "api" })).toMatchObject({ status: 400, body: { name: "origin" } });
    expect(await api("POST", "/summaries", { videoId, attributes: ["abstract", "keywords"] })).toMatchObject({ status: 400, body: { name: "attributes[1]" } });
    expect(await api("POST", "/summaries", { videoId, attributes: [] })).toMatchObject({ status: 400, body: { name: "attributes" } });
    const { summaryId } = (await api("POST", "/summaries", { videoId })).body;
    expect(await api("PATCH", `/summaries/${summaryId}/source`, { takeaways: ["1", "2", "3", "4"] })).toMatchObject({ status: 400, body: { name: "takeaways" } });
    expect(await api("PATCH", `/summaries/${summaryId}/source`, { abstract: 3 })).toMatchObject({ status: 400, body: { name: "abstract" } });
    expect(await api("GET", "/summaries/summary_0000000000000000000000/source")).toMatchObject({ status: 404, body: { name: "summaryId", type: expect.stringContaining("resource-not-found") } });
    expect((await app.api(key, "DELETE", "/summaries/summary_0000000000000000000000")).status).toBe(404);
    expect((await app.api(key, "DELETE", "/summaries/summary_0000000000000000000000/source")).status).toBe(404);
    // Another project sees nothing of it.
    const other = await app.newProject("other");
    expect((await app.api(other.sandboxKey, "GET", `/summaries/${summaryId}/source`)).status).toBe(404);
    expect((await (await app.api(other.sandboxKey, "GET", "/summaries")).json() as { data: unknown[] }).data).toEqual([]);
    expect((await app.api(other.sandboxKey, "POST", "/summaries", { videoId })).status).toBe(404);
  });
});

describe("auto summaries", () => {
  test("asked before encoding: waiting (with its 409s) until the video is encoded, then completed from its captions", async () => {
    const videoId = await video({ captions: transcriptVtt(TRANSCRIPTS.en) });
    const created = await api("POST", "/summaries", { videoId, origin: "auto" });
    expect(created).toMatchObject({ status: 201, body: { origin: "auto", sourceStatus: "waiting" } });
    const id = created.body.summaryId;

    // While waiting: no second generation, no hand-written source, no video update asking for one.
    expect(await api("POST", "/summaries", { videoId, origin: "auto" })).toMatchObject({ status: 409, body: { ...CONFLICT, name: "videoId" } });
    const patch = await api("PATCH", `/summaries/${id}/source`, { abstract: "too early" });
    expect(patch.status).toBe(409);
    expect(patch.body).toEqual({ ...CONFLICT, name: "summaryId", detail: "This summary is being generated: change its source once generation ends, or delete it." });
    expect(await api("PATCH", `/videos/${videoId}`, { transcriptSummary: true })).toMatchObject({ status: 409, body: { name: "transcriptSummary" } });
    expect((await api("GET", `/summaries/${id}/source`)).body).toEqual({});

    await uploadSource(app, key, "sandbox", videoId, clip);
    const done = await settled(videoId);
    expect(done).toMatchObject({ summaryId: id, sourceStatus: "completed", failureReason: null });
    expect(done.updatedAt >= done.createdAt).toBe(true);
    const source = (await api("GET", `/summaries/${id}/source`)).body as { abstract: string; takeaways: string[] };
    const words = source.abstract.split(/\s+/).length;
    expect(words).toBeGreaterThanOrEqual(20);
    expect(words).toBeLessThanOrEqual(300);
    expect(source.takeaways).toHaveLength(3);
    const text = TRANSCRIPTS.en.replace(/\s+/g, " ");
    const at = source.takeaways.map((t) => text.indexOf(t));
    expect(at.every((i) => i >= 0)).toBe(true);
    expect(at).toEqual([...at].sort((a, b) => a - b));

    // DELETE /summaries/{id}: gone, and the video may be summarised again.
    expect((await app.api(key, "DELETE", `/summaries/${id}`)).status).toBe(204);
    expect((await api("GET", `/summaries/${id}/source`)).status).toBe(404);
    expect(await summaryOf(videoId)).toBeUndefined();
    const regenerated = await api("PATCH", `/videos/${videoId}`, { transcriptSummary: true, transcriptSummaryAttributes: ["abstract"] });
    expect(regenerated.status).toBe(200);
    const second = await settled(videoId);
    expect(second.summaryId).not.toBe(id);
    expect(second.sourceStatus).toBe("completed");
    expect(Object.keys((await api("GET", `/summaries/${second.summaryId}/source`)).body)).toEqual(["abstract"]);
  });

  test("transcriptSummary on create, with attributes", async () => {
    const videoId = await video({ captions: transcriptVtt(TRANSCRIPTS.fr), fields: { transcriptSummary: true, transcriptSummaryAttributes: ["takeaways"], language: "fr" } });
    expect(await summaryOf(videoId)).toMatchObject({ origin: "auto", sourceStatus: "waiting" });
    await uploadSource(app, key, "sandbox", videoId, clip);
    const done = await settled(videoId);
    expect(done.sourceStatus).toBe("completed");
    const source = (await api("GET", `/summaries/${done.summaryId}/source`)).body;
    expect(Object.keys(source)).toEqual(["takeaways"]);
    expect(source.takeaways.join(" ")).toContain("levain");
  });

  test("asked after encoding: generated at once", async () => {
    const videoId = await video({ source: clip, captions: transcriptVtt(TRANSCRIPTS.de) });
    expect((await api("POST", "/summaries", { videoId, origin: "auto" })).status).toBe(201);
    expect(await settled(videoId)).toMatchObject({ sourceStatus: "completed" });
  });

  test("DELETE source while waiting stops the generation", async () => {
    const videoId = await video({ captions: transcriptVtt(TRANSCRIPTS.es) });
    const { summaryId } = (await api("POST", "/summaries", { videoId, origin: "auto" })).body;
    expect((await app.api(key, "DELETE", `/summaries/${summaryId}/source`)).status).toBe(204);
    await uploadSource(app, key, "sandbox", videoId, clip);
    await waitEncoded(app, key, videoId, "sandbox");
    // The encode is done and nothing brought the summary back to life.
    await waitFor("no summary job left", () => !jobBusy(app, "summary.generate"));
    expect(await summaryOf(videoId)).toMatchObject({ summaryId, sourceStatus: "missing" });
  });
});

describe("unprocessable", () => {
  test("no captions and no speech-to-text engine", async () => {
    const videoId = await video({ source: clip });
    await api("POST", "/summaries", { videoId, origin: "auto" });
    expect(await settled(videoId)).toMatchObject({ sourceStatus: "unprocessable", failureReason: "No speech-to-text engine is configured (VIDHOST_STT) and the video has no captions." });
  });

  test("a clip with no audio track and no captions", async () => {
    const videoId = await video({ source: silentClip, fields: { transcriptSummary: true } });
    expect(await settled(videoId)).toMatchObject({ sourceStatus: "unprocessable", failureReason: "The video has no audio track and no captions." });
    // Unprocessable holds no source: a new generation may start (and ends the same way).
    expect((await api("POST", "/summaries", { videoId, origin: "auto" })).status).toBe(201);
  });

  test("captions of fewer than 50 words", async () => {
    const videoId = await video({ source: clip, captions: "WEBVTT\n\n00:00.000 --> 00:01.000\nOnly a handful of words are spoken in this clip.\n" });
    await api("POST", "/summaries", { videoId, origin: "auto" });
    expect(await settled(videoId)).toMatchObject({ sourceStatus: "unprocessable", failureReason: "The captions hold 10 words; a summary needs at least 50." });
  });
});

describe("through the Node client", () => {
  test("create, list with filters and sorting, getSummarySource, update, delete", async () => {
    const project = await app.newProject("client summaries");
    const c = new ApiVideoClient({ apiKey: project.sandboxKey, baseUri: app.urls.sandbox });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await c.videos.create({ title: `v${i}` })).videoId);
    await c.captions.upload(ids[0], "en", Buffer.from(transcriptVtt(TRANSCRIPTS.en)));

    const manual = await c.summaries.create({ videoId: ids[1] });
    expect(manual).toMatchObject({ videoId: ids[1], origin: "api", sourceStatus: "missing" });
    expect(manual.summaryId).toMatch(/^summary_/);
    expect(manual.createdAt).toBeInstanceOf(Date);
    const auto = await c.summaries.create({ videoId: ids[0], origin: "auto", attributes: ["abstract", "takeaways"] });
    expect(auto.sourceStatus).toBe("waiting");
    await c.summaries.create({ videoId: ids[2] });

    const conflict = await c.summaries.create({ videoId: ids[0], origin: "auto" }).then(() => null, (e) => e);
    expect(conflict.problemDetails).toMatchObject({ ...CONFLICT, name: "videoId" });

    const all = await c.summaries.list({});
    expect(all.pagination).toMatchObject({ itemsTotal: 3, currentPage: 1 });
    expect((await c.summaries.list({ origin: "auto" })).data.map((s) => s.videoId)).toEqual([ids[0]]);
    expect((await c.summaries.list({ sourceStatus: "missing" })).data.map((s) => s.videoId)).toEqual([ids[1], ids[2]]);
    expect((await c.summaries.list({ videoId: ids[2] })).data.map((s) => s.summaryId)).toHaveLength(1);
    const byVideo = (await c.summaries.list({ sortBy: "videoId", sortOrder: "desc" })).data.map((s) => s.videoId);
    expect(byVideo).toEqual([...ids].sort().reverse());
    const page = await c.summaries.list({ sortBy: "createdAt", sortOrder: "asc", currentPage: 2, pageSize: 2 });
    expect(page.data).toHaveLength(1);
    expect(page.pagination).toMatchObject({ currentPage: 2, pageSize: 2, pagesTotal: 2, itemsTotal: 3, currentPageItems: 1 });
    expect(page.pagination.links?.map((l) => l.rel)).toEqual(["self", "first", "previous", "last"]);
    const bad = await app.api(project.sandboxKey, "GET", "/summaries?sourceStatus=done");
    expect(bad.status).toBe(400);

    // The client calls `abstract` `_abstract` (a reserved word in some of its languages).
    const abstract = "Written by hand for the second video of this project, long enough to read like an outline.";
    const written = await c.summaries.update(manual.summaryId!, { _abstract: abstract, takeaways: ["a", "b", "c"] });
    expect({ ...written }).toEqual({ _abstract: abstract, takeaways: ["a", "b", "c"] });
    expect({ ...(await c.summaries.getSummarySource(manual.summaryId!)) }).toEqual({ ...written });
    expect((await c.summaries.list({ videoId: ids[1] })).data[0].sourceStatus).toBe("completed");
    await c.summaries.delete(manual.summaryId!);
    expect((await c.summaries.getSummarySource(manual.summaryId!).then(() => null, (e) => e)).problemDetails).toMatchObject({ status: 404, name: "summaryId" });
    // Deleting a video deletes its summary.
    await c.videos.delete(ids[2]);
    expect((await c.summaries.list({})).data.map((s) => s.videoId)).toEqual([ids[0]]);
  });
});
