// Usage: what delivery really served (HLS segments by their #EXTINF, MP4 bytes by their share) and
// what is really stored (encoded videos by their probed duration, sandbox cut to 30 s), per UTC day,
// through GET /projects/{id}/delivery-usage and /hosting-usage; plus their 400/401/404 scenarios.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { problem, scenarios } from "../../test/admin-scenarios";
import { makeClip } from "../../test/fixtures/media";
import { basic, startTestAppliance, waitFor, type TestAppliance } from "../../test/helpers";
import { snapshotHosting } from "./hosting";
import { segmentSeconds } from "./record";

setDefaultTimeout(90_000);

test("segmentSeconds reads a segment's #EXTINF, and nothing for other lines", () => {
  const playlist = "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4.000000,\nseg_000.ts\n#EXT-X-DISCONTINUITY\n#EXTINF:1.480000,\nseg_001.ts\n#EXT-X-ENDLIST\n";
  expect(segmentSeconds(playlist, "seg_000.ts")).toBe(4);
  expect(segmentSeconds(playlist, "seg_001.ts")).toBe(1.48);
  expect(segmentSeconds(playlist, "seg_002.ts")).toBeNull();
  expect(segmentSeconds(playlist, "#EXTM3U")).toBeNull();
  expect(segmentSeconds("seg_000.ts\n", "seg_000.ts")).toBeNull();
});

let app: TestAppliance;
const now = { ms: Date.parse("2026-11-21T10:00:00Z") };
const clock = { now: () => new Date(now.ms) };
let project: { projectId: string; sandboxKey: string; productionKey: string };
const videos = { sandbox: "", production: "" };

async function upload(key: string, env: "sandbox" | "production", file: string): Promise<string> {
  const video = (await (await app.api(key, "POST", "/videos", { title: env }, env)).json()) as { videoId: string };
  const form = new FormData();
  form.append("file", Bun.file(file), "clip.mp4");
  const base = env === "sandbox" ? app.urls.sandbox : app.urls.production;
  const res = await fetch(`${base}/videos/${video.videoId}/source`, { method: "POST", headers: { authorization: basic(key) }, body: form });
  expect(res.status).toBe(201);
  return video.videoId;
}

async function encoded(key: string, env: "sandbox" | "production", videoId: string) {
  await waitFor(`${videoId} encoded`, async () => {
    const s = (await (await app.api(key, "GET", `/videos/${videoId}/status`, undefined, env)).json()) as { encoding: { qualities: { status: string }[] } };
    if (s.encoding.qualities.some((q) => q.status === "failed")) throw new Error("encoding failed");
    return s.encoding.qualities.length > 0 && s.encoding.qualities.every((q) => q.status === "encoded");
  }, 60_000);
}

const usage = async <T>(kind: "delivery" | "hosting", query: string) => {
  const res = await app.admin("GET", `/projects/${project.projectId}/${kind}-usage?${query}`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { items: T[] }).items;
};
type Hosting = { collected_on: string; video_duration_minutes: number };
type Delivery = { collected_on: string; video_hls_duration_minutes: number; video_mp4_duration_minutes: number; live_stream_hls_duration_minutes: number };

beforeAll(async () => {
  const [sandboxClip, productionClip, started] = await Promise.all([
    makeClip({ width: 320, height: 180, seconds: 3 }),
    makeClip({ width: 320, height: 180, seconds: 6 }),
    startTestAppliance({ clock, env: { VIDHOST_ADMIN_RATE_LIMIT: "100000", VIDHOST_RATE_LIMITS: "sandbox.reads=100000,sandbox.writes=100000,production.reads=100000" } }),
  ]);
  app = started;
  project = await app.newProject("Usage");
  videos.sandbox = await upload(project.sandboxKey, "sandbox", sandboxClip);
  videos.production = await upload(project.productionKey, "production", productionClip);
  await encoded(project.sandboxKey, "sandbox", videos.sandbox);
  await encoded(project.productionKey, "production", videos.production);
});
afterAll(() => app.close());

describe("usage routes", () => {
  scenarios(() => app, [
    {
      name: "a week: 7 days, oldest first, ending today (UTC)", method: "GET", path: () => `/projects/${project.projectId}/hosting-usage?interval=week`, status: 200,
      check: (b) => expect(b.items.map((i: Hosting) => i.collected_on)).toEqual(["2026-11-15", "2026-11-16", "2026-11-17", "2026-11-18", "2026-11-19", "2026-11-20", "2026-11-21"]),
    },
    {
      name: "a month: 30 days", method: "GET", path: () => `/projects/${project.projectId}/delivery-usage?interval=month`, status: 200,
      check: (b) => {
        expect(b.items).toHaveLength(30);
        expect(b.items[0]).toEqual({ collected_on: "2026-10-23", video_hls_duration_minutes: 0, video_mp4_duration_minutes: 0, live_stream_hls_duration_minutes: 0 });
        expect(b.items[29].collected_on).toBe("2026-11-21");
      },
    },
    { name: "interval is required", method: "GET", path: () => `/projects/${project.projectId}/hosting-usage`, status: 400, match: problem(400, "attribute-required", { name: "interval", constraint: "attribute-required" }) },
    { name: "interval year", method: "GET", path: () => `/projects/${project.projectId}/delivery-usage?interval=year`, status: 400, match: problem(400, "invalid-attribute", { name: "interval", detail: "This attribute must be one of: month, week." }) },
    { name: "environment staging", method: "GET", path: () => `/projects/${project.projectId}/delivery-usage?interval=week&environment=staging`, status: 400, match: problem(400, "invalid-attribute", { name: "environment" }) },
    { name: "unknown parameter", method: "GET", path: () => `/projects/${project.projectId}/hosting-usage?interval=week&from=2026-01-01`, status: 400, match: problem(400, "invalid-attribute", { name: "from" }) },
    { name: "unknown project", method: "GET", path: "/projects/project_000000000000000000000/hosting-usage?interval=week", status: 404, match: problem(404, "resource-not-found", { name: "project_id" }) },
    { name: "no credentials", method: "GET", path: () => `/projects/${project.projectId}/delivery-usage?interval=week`, auth: "none", status: 401 },
  ]);
});

describe("hosting usage", () => {
  test("today counts every encoded video by its probed duration, per environment or both", async () => {
    const both = await usage<Hosting>("hosting", "interval=week");
    expect(both.slice(0, 6).every((d) => d.video_duration_minutes === 0)).toBe(true);
    expect(both[6].video_duration_minutes).toBeCloseTo(9 / 60, 2);
    expect((await usage<Hosting>("hosting", "interval=week&environment=sandbox"))[6].video_duration_minutes).toBeCloseTo(3 / 60, 2);
    expect((await usage<Hosting>("hosting", "interval=week&environment=production"))[6].video_duration_minutes).toBeCloseTo(6 / 60, 2);
  });

  test("past days keep the day's snapshot after a video is deleted", async () => {
    expect(snapshotHosting(app.ctx)).toBeGreaterThanOrEqual(2);
    // The next UTC day (less than 24 h on, so the sandbox video is not purged).
    now.ms += 23 * 3600_000;
    expect((await app.api(project.productionKey, "DELETE", `/videos/${videos.production}`, undefined, "production")).status).toBe(204);
    const days = await usage<Hosting>("hosting", "interval=week");
    expect(days.map((d) => d.collected_on).at(-1)).toBe("2026-11-22");
    expect(days.at(-2)!.video_duration_minutes).toBeCloseTo(9 / 60, 2);
    expect(days.at(-1)!.video_duration_minutes).toBeCloseTo(3 / 60, 2);
    // A snapshot taken today replaces nothing of yesterday's.
    snapshotHosting(app.ctx);
    expect((await usage<Hosting>("hosting", "interval=week")).at(-2)!.video_duration_minutes).toBeCloseTo(9 / 60, 2);
  });
});

describe("delivery usage", () => {
  test("HLS segments count their durations, MP4 bytes their share, playlists and HEAD requests nothing", async () => {
    const before = (await usage<Delivery>("delivery", "interval=week")).at(-1)!;
    expect(before).toMatchObject({ video_hls_duration_minutes: 0, video_mp4_duration_minutes: 0, live_stream_hls_duration_minutes: 0 });

    const vod = `${app.urls.sandbox}/vod/${videos.sandbox}`;
    const master = await (await fetch(`${vod}/hls/manifest.m3u8`)).text();
    const quality = master.split("\n").find((l) => l.endsWith("/index.m3u8"))!.split("/")[0];
    const playlist = await (await fetch(`${vod}/hls/${quality}/index.m3u8`)).text();
    const segments = playlist.split("\n").filter((l) => l && !l.startsWith("#"));
    const seconds = segments.reduce((sum, s) => sum + segmentSeconds(playlist, s)!, 0);
    expect(seconds).toBeGreaterThan(2.5);
    // HEAD requests (players and link checkers probe with them) serve no bytes and count nothing.
    for (const s of segments) expect((await fetch(`${vod}/hls/${quality}/${s}`, { method: "HEAD" })).status).toBe(200);
    expect((await fetch(`${vod}/mp4/source.mp4`, { method: "HEAD" })).status).toBe(200);
    expect((await fetch(`${vod}/mp4/source.mp4`, { method: "HEAD", headers: { range: "bytes=0-99" } })).status).toBe(206);
    for (const s of segments) expect((await fetch(`${vod}/hls/${quality}/${s}`)).status).toBe(200);

    // A player's first range request, then the first half of the file.
    const probe = await fetch(`${vod}/mp4/source.mp4`, { headers: { range: "bytes=0-1" } });
    await probe.arrayBuffer();
    const size = Number(probe.headers.get("content-range")!.split("/")[1]);
    const half = Math.floor(size / 2);
    const ranged = await fetch(`${vod}/mp4/source.mp4`, { headers: { range: `bytes=2-${half - 1}` } });
    expect(ranged.status).toBe(206);
    await ranged.arrayBuffer();

    const today = await waitFor("recorded delivery", async () => {
      const d = (await usage<Delivery>("delivery", "interval=week&environment=sandbox")).at(-1)!;
      return d.video_hls_duration_minutes > 0 && d.video_mp4_duration_minutes > 0 ? d : null;
    });
    expect(today.collected_on).toBe("2026-11-22");
    expect(today.video_hls_duration_minutes).toBeCloseTo(seconds / 60, 2);
    // Half the bytes of a 3 s video: 1.5 s.
    expect(today.video_mp4_duration_minutes).toBeCloseTo(1.5 / 60, 2);
    expect(today.live_stream_hls_duration_minutes).toBe(0);
    // Production served nothing; yesterday served nothing.
    expect((await usage<Delivery>("delivery", "interval=week&environment=production")).at(-1)!.video_hls_duration_minutes).toBe(0);
    expect((await usage<Delivery>("delivery", "interval=week")).at(-2)!.video_hls_duration_minutes).toBe(0);
  });
});

test("a deleted project's usage goes with it", async () => {
  await app.admin("PATCH", `/projects/${project.projectId}`, { deletes_at: "next_cycle" });
  now.ms = Date.parse("2026-12-01T00:00:00Z");
  const { deleteDueProjects } = await import("../projects/deletion");
  expect(await deleteDueProjects(app.ctx)).toContain(project.projectId);
  const { sqlite } = await import("../db/client").then((m) => m.openDatabase(`${app.dataDir}/vidhost.db`));
  const left = sqlite.prepare("SELECT (SELECT count(*) FROM delivery_usage WHERE project_id = ?1) AS delivery, (SELECT count(*) FROM hosting_usage WHERE project_id = ?1) AS hosting").get({ 1: project.projectId });
  sqlite.close();
  expect(left).toEqual({ delivery: 0, hosting: 0 });
});
