// Credentials that are not API keys follow the project's state as API keys do: with production
// switched off, or the project deleted (its row not gone yet), upload tokens answer as unknown ones
// and stream keys are refused as unknown ones. Real HTTP uploads, real ffmpeg publishes over RTMP.
// Encoding is not what this is about: the job queue is stopped, so encodes and finishes stay queued.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { count, eq } from "drizzle-orm";
import { atom } from "../../src/clock";
import { liveBroadcasts, liveStreams, projects, videos } from "../../src/db/schema";
import { deleteDueProjects } from "../../src/projects/deletion";
import { makeClip, mediaTempDir } from "../fixtures/media";
import { startTestAppliance, waitFor, type TestAppliance } from "../helpers";
import { LIVE_TEST_ENV, createLiveStream, ingest, publish, waitBroadcasting } from "./live-support";

setDefaultTimeout(120_000);

let app: TestAppliance;
let clip: string;
const dir = mediaTempDir();

beforeAll(async () => {
  app = await startTestAppliance({ env: LIVE_TEST_ENV });
  await app.ctx.queue.stop();
  clip = await makeClip({ width: 160, height: 120, seconds: 1, out: join(dir, "clip.mp4") });
});
afterAll(async () => {
  await app.close();
  rmSync(dir, { recursive: true, force: true });
});

const setProduction = async (projectId: string, on: boolean) =>
  expect((await app.admin("PATCH", `/projects/${projectId}`, { production_enabled: on })).status).toBe(200);

/** What the first step of a project's deletion leaves (projects/deletion.ts): marked deleted, the row and its tokens still there. */
function markDeleted(projectId: string) {
  app.ctx.db.update(projects).set({ deleted: true }).where(eq(projects.id, projectId)).run();
  app.ctx.keyCache.invalidateProject(projectId);
}

async function uploadToken(key: string, env: "sandbox" | "production") {
  const res = await app.api(key, "POST", "/upload-tokens", { ttl: 0 }, env);
  expect(res.status).toBe(200);
  return ((await res.json()) as { token: string }).token;
}

function upload(token: string, env: "sandbox" | "production") {
  const form = new FormData();
  form.append("file", new Blob([Bun.file(clip)]), "clip.mp4");
  return fetch(`${env === "sandbox" ? app.urls.sandbox : app.urls.production}/upload?token=${token}`, { method: "POST", body: form });
}

/** The answer to a token that never existed, on the same listener. */
async function unknownAnswer(env: "sandbox" | "production") {
  const res = await upload("to0000000000000000000000", env);
  return { status: res.status, body: await res.json() };
}

async function expectRefusedAsUnknown(token: string, env: "sandbox" | "production") {
  const res = await upload(token, env);
  expect({ status: res.status, body: await res.json() }).toEqual(await unknownAnswer(env));
  expect(res.status).toBe(401);
}

const videoCount = (projectId: string) => app.ctx.db.select({ n: count() }).from(videos).where(eq(videos.projectId, projectId)).get()!.n;
const broadcastsOf = (liveStreamId: string) => app.ctx.db.select().from(liveBroadcasts).where(eq(liveBroadcasts.liveStreamId, liveStreamId)).all();
const broadcasting = (liveStreamId: string) => app.ctx.db.select({ on: liveStreams.broadcasting }).from(liveStreams).where(eq(liveStreams.id, liveStreamId)).get()!.on;

describe("upload tokens", () => {
  test("a production token is refused as an unknown one while production is off, and works again once it is back on", async () => {
    const { projectId, productionKey, sandboxKey } = await app.newProject("Uploads");
    const production = await uploadToken(productionKey, "production");
    const sandbox = await uploadToken(sandboxKey, "sandbox");
    expect((await upload(production, "production")).status).toBe(201);
    expect(videoCount(projectId)).toBe(1);

    await setProduction(projectId, false);
    await expectRefusedAsUnknown(production, "production");
    expect(videoCount(projectId)).toBe(1);
    // The sandbox keeps working: only production is switched off.
    expect((await upload(sandbox, "sandbox")).status).toBe(201);
    expect(videoCount(projectId)).toBe(2);

    await setProduction(projectId, true);
    expect((await upload(production, "production")).status).toBe(201);
    expect(videoCount(projectId)).toBe(3);
  });

  test("every token of a deleted project is refused as an unknown one", async () => {
    const { projectId, productionKey, sandboxKey } = await app.newProject("Deleted uploads");
    const production = await uploadToken(productionKey, "production");
    const sandbox = await uploadToken(sandboxKey, "sandbox");
    markDeleted(projectId);
    await expectRefusedAsUnknown(production, "production");
    await expectRefusedAsUnknown(sandbox, "sandbox");
    expect(videoCount(projectId)).toBe(0);
  });
});

describe("stream keys", () => {
  test("switching production off ends the production broadcast and refuses its key as unknown; back on, the key publishes again", async () => {
    const { projectId, productionKey } = await app.newProject("Live");
    const stream = await createLiveStream(app, productionKey, { name: "prod" }, "production");
    const url = ingest(app, stream.streamKey);

    const running = publish(url, 60, { size: "320x180" });
    await waitBroadcasting(app, productionKey, stream.liveStreamId, true, "production");
    await setProduction(projectId, false);
    // Completed, as through the API: the publisher is cut off and the broadcast does not wait for a reconnect.
    expect(await running.exited).not.toBe(0);
    await waitFor("broadcasting off", () => !broadcasting(stream.liveStreamId));
    expect(broadcastsOf(stream.liveStreamId).map((b) => b.state)).toEqual([expect.stringMatching(/^(completing|finalizing|completed)$/)]);

    const refused = publish(url, 2, { size: "320x180" });
    expect(await refused.exited).not.toBe(0);
    expect(await refused.stderr).toContain("unknown stream key");
    expect(broadcastsOf(stream.liveStreamId)).toHaveLength(1);
    expect(broadcasting(stream.liveStreamId)).toBe(false);

    await setProduction(projectId, true);
    const again = publish(url, 2, { size: "320x180" });
    await waitBroadcasting(app, productionKey, stream.liveStreamId, true, "production");
    expect(await again.exited).toBe(0);
    expect(broadcastsOf(stream.liveStreamId)).toHaveLength(2);
  });

  test("the key of a deleted project's live stream is refused as unknown", async () => {
    const { projectId, sandboxKey } = await app.newProject("Deleted live");
    const stream = await createLiveStream(app, sandboxKey, { name: "sandbox" });
    markDeleted(projectId);
    const refused = publish(ingest(app, stream.streamKey), 2, { size: "320x180" });
    expect(await refused.exited).not.toBe(0);
    expect(await refused.stderr).toContain("unknown stream key");
    expect(broadcastsOf(stream.liveStreamId)).toHaveLength(0);
  });

  test("a project's deletion cuts its running broadcast off before its media folder goes", async () => {
    const { projectId, sandboxKey } = await app.newProject("Deleted while live");
    const stream = await createLiveStream(app, sandboxKey, { name: "sandbox" });
    const running = publish(ingest(app, stream.streamKey), 60, { size: "320x180" });
    await waitBroadcasting(app, sandboxKey, stream.liveStreamId, true);
    expect(existsSync(join(app.dataDir, "media", projectId))).toBe(true);
    app.ctx.db.update(projects).set({ deletesAt: atom(new Date(0)) }).where(eq(projects.id, projectId)).run();
    expect(await deleteDueProjects(app.ctx)).toEqual([projectId]);
    expect(await running.exited).not.toBe(0);
    // Its writers stopped before the folder was removed, so nothing wrote it back.
    expect(existsSync(join(app.dataDir, "media", projectId))).toBe(false);
  });
});
