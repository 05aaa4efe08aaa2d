// Hosting usage with Video Restore (VIDHOST_VIDEO_RESTORE=true): a discarded video is not hosted
// (the API and delivery no longer know it), so it stops counting the day it is discarded, in today's
// figure, in the hourly snapshot and in the estimate of days before any snapshot; its media stay on
// disk until the purge, and a restored video counts again. Clock injected, days in UTC.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import ApiVideoClient from "@api.video/nodejs-client";
import { snapshotHosting } from "../../src/usage/hosting";
import { makeClip } from "../fixtures/media";
import { startTestAppliance, type TestAppliance } from "../helpers";
import { NO_RATE_LIMITS, uploadVideo, waitEncoded } from "./vod-support";

setDefaultTimeout(90_000);

const now = { ms: Date.parse("2026-11-21T10:00:00Z") };
let app: TestAppliance;
let project: { projectId: string; sandboxKey: string; productionKey: string };
let client: ApiVideoClient;
const ids = { kept: "", binned: "" };

type Hosting = { collected_on: string; video_duration_minutes: number };
async function hosting(query = "interval=week"): Promise<Hosting[]> {
  const res = await app.admin("GET", `/projects/${project.projectId}/hosting-usage?${query}`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { items: Hosting[] }).items;
}
/** The last `n` days' figures in seconds (rounded), oldest first. */
const lastDays = async (n: number, query?: string) => (await hosting(query)).slice(-n).map((d) => [d.collected_on, Math.round(d.video_duration_minutes * 60)]);

beforeAll(async () => {
  const [short, long, started] = await Promise.all([
    makeClip({ width: 320, height: 180, seconds: 2 }),
    makeClip({ width: 320, height: 180, seconds: 4 }),
    startTestAppliance({ clock: { now: () => new Date(now.ms) }, env: { ...NO_RATE_LIMITS, VIDHOST_VIDEO_RESTORE: "true", VIDHOST_ADMIN_RATE_LIMIT: "100000" } }),
  ]);
  app = started;
  project = await app.newProject("Usage and restore");
  client = new ApiVideoClient({ apiKey: project.productionKey, baseUri: app.urls.production });
  [ids.kept, ids.binned] = await Promise.all([
    uploadVideo(app, project.productionKey, "production", short, "kept"),
    uploadVideo(app, project.productionKey, "production", long, "binned"),
  ]);
  await Promise.all([ids.kept, ids.binned].map((id) => waitEncoded(app, project.productionKey, id, "production")));
});
afterAll(() => app?.close());

test("a discarded video stops counting the day it is discarded; earlier days keep it", async () => {
  expect(await lastDays(1)).toEqual([["2026-11-21", 6]]);
  // Two days on, with no snapshot taken (a real-time one at minute 59 would write the same figures).
  now.ms = Date.parse("2026-11-23T10:00:00Z");
  await client.videos.delete(ids.binned);
  expect((await client.videos.listDiscarded()).data.map((v) => v.videoId)).toEqual([ids.binned]);
  // The days before its discard are estimated with it; from the discard day on, without it.
  expect(await lastDays(4)).toEqual([["2026-11-20", 0], ["2026-11-21", 6], ["2026-11-22", 6], ["2026-11-23", 2]]);
  expect(await lastDays(1, "interval=week&environment=production")).toEqual([["2026-11-23", 2]]);
  expect(await lastDays(1, "interval=month&environment=sandbox")).toEqual([["2026-11-23", 0]]);
  // Its media are still on disk (a restore brings it back whole): bytes kept, not hosting.
  expect(existsSync(join(app.dataDir, "media", project.projectId, "production", "videos", ids.binned))).toBe(true);
});

test("the snapshot leaves a discarded video out, and a restored one counts again", async () => {
  expect(snapshotHosting(app.ctx)).toBeGreaterThanOrEqual(1);
  now.ms = Date.parse("2026-11-24T10:00:00Z");
  await client.videos.updateDiscarded(ids.binned, { discarded: false });
  expect((await client.videos.get(ids.binned)).discarded).toBe(false);
  // 11-23 is the snapshot's figure (discarded then), not an estimate from today's restored state.
  expect(await lastDays(2)).toEqual([["2026-11-23", 2], ["2026-11-24", 6]]);
});
