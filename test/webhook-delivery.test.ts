// The delivery engine against a real local receiver: signatures, retries, restarts.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { rmSync } from "node:fs";
import { jobs, webhookAttempts, webhookDeliveries } from "../src/db/schema";
import { hmacSha256Hex } from "../src/security";
import { emitEvent, WEBHOOK_EVENTS } from "../src/webhooks/events";
import { startTestAppliance, tempDir, waitFor, type TestAppliance } from "./helpers";

// Retries are 3 s apart by contract, so some tests here take ~7 s.
setDefaultTimeout(60_000);

interface Received { path: string; at: number; body: string; headers: Headers }

/** A receiver whose answer per path is scripted: a list of statuses, the last one repeating. */
function receiver(script: Record<string, number[]>) {
  const received: Received[] = [];
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const path = new URL(req.url).pathname;
      received.push({ path, at: Date.now(), body: await req.text(), headers: req.headers });
      const statuses = script[path] ?? [200];
      const n = received.filter((r) => r.path === path).length;
      return new Response("ok", { status: statuses[Math.min(n, statuses.length) - 1] });
    },
  });
  return { received, url: (path: string) => `http://127.0.0.1:${server.port}${path}`, at: (path: string) => received.filter((r) => r.path === path), stop: () => server.stop(true) };
}

async function subscribe(app: TestAppliance, key: string, url: string, events: string[] = [...WEBHOOK_EVENTS]) {
  const res = await app.api(key, "POST", "/webhooks", { events, url });
  return (await res.json()) as { webhookId: string; signatureSecret: string };
}

let app: TestAppliance;
let rx: ReturnType<typeof receiver>;
let project: { projectId: string; sandboxKey: string };

beforeAll(async () => {
  app = await startTestAppliance();
  project = await app.newProject("Deliveries");
  rx = receiver({ "/flaky": [500, 503, 200], "/down": [500] });
});
afterAll(async () => {
  await app.close();
  rx.stop();
});

const scope = () => ({ projectId: project.projectId, environment: "sandbox" as const });

describe("delivery", () => {
  test("each of the four events arrives once, signed over the exact body", async () => {
    const hook = await subscribe(app, project.sandboxKey, rx.url("/all"));
    const fields = {
      "live-stream.broadcast.started": { liveStreamId: "li0000000000000000000001" },
      "live-stream.broadcast.ended": { liveStreamId: "li0000000000000000000001" },
      "video.source.recorded": { liveStreamId: "li0000000000000000000001", videoId: "vi0000000000000000000001" },
      "video.encoding.quality.completed": { videoId: "vi0000000000000000000001", encoding: "hls" as const, quality: "720p" },
    };
    for (const type of WEBHOOK_EVENTS) {
      app.ctx.db.transaction((tx) => emitEvent(app.ctx, tx, scope(), type, fields[type] as never));
    }
    const got = await waitFor("four deliveries", () => (rx.at("/all").length >= 4 ? rx.at("/all") : null));
    expect(got.map((r) => JSON.parse(r.body).type).sort()).toEqual([...WEBHOOK_EVENTS].sort());
    for (const r of got) {
      const body = JSON.parse(r.body);
      expect(body).toMatchObject(fields[body.type as keyof typeof fields]);
      expect(body.emittedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(r.headers.get("x-api-video-webhookid")).toBe(hook.webhookId);
      expect(r.headers.get("x-api-video-signature")).toBe(hmacSha256Hex(hook.signatureSecret, r.body));
      expect(r.headers.get("content-type")).toBe("application/json");
    }
  });

  test("webhooks not subscribed to an event, or of another scope, receive nothing", async () => {
    const other = await app.newProject("Quiet");
    await subscribe(app, other.sandboxKey, rx.url("/other-project"));
    await subscribe(app, project.sandboxKey, rx.url("/live-only"), ["live-stream.broadcast.started"]);
    const n = app.ctx.db.transaction((tx) => emitEvent(app.ctx, tx, scope(), "video.source.recorded", { liveStreamId: "li1", videoId: "vi1" }));
    expect(n).toBe(1); // only "/all", from the first test
    await waitFor("the /all delivery", () => rx.at("/all").length >= 5);
    expect(rx.at("/other-project")).toHaveLength(0);
    expect(rx.at("/live-only")).toHaveLength(0);
  });

  test("a receiver failing twice then answering 200 gets exactly 3 attempts, 3 s apart", async () => {
    const hook = await subscribe(app, project.sandboxKey, rx.url("/flaky"), ["video.source.recorded"]);
    app.ctx.db.transaction((tx) => emitEvent(app.ctx, tx, scope(), "video.source.recorded", { liveStreamId: "li2", videoId: "vi2" }));
    const delivery = await waitFor("delivered", () =>
      app.ctx.db.select().from(webhookDeliveries).where(and(eq(webhookDeliveries.status, "delivered"), eq(webhookDeliveries.event, "video.source.recorded"))).all()
        .find((d) => d.webhookId === hook.webhookId && rx.at("/flaky").length === 3), 20_000);
    const hits = rx.at("/flaky");
    expect(hits).toHaveLength(3);
    expect(hits[1].at - hits[0].at).toBeGreaterThanOrEqual(2900);
    expect(hits[2].at - hits[1].at).toBeGreaterThanOrEqual(2900);
    expect(hits.every((h) => h.body === hits[0].body)).toBe(true);
    const attempts = app.ctx.db.select().from(webhookAttempts).where(eq(webhookAttempts.deliveryId, delivery.id)).all();
    expect(attempts.map((a) => a.statusCode)).toEqual([500, 503, 200]);
  });

  test("a receiver that always fails gets exactly 3 attempts and the delivery is marked failed", async () => {
    await subscribe(app, project.sandboxKey, rx.url("/down"), ["live-stream.broadcast.ended"]);
    app.ctx.db.transaction((tx) => emitEvent(app.ctx, tx, scope(), "live-stream.broadcast.ended", { liveStreamId: "li3" }));
    const delivery = await waitFor("failed", () =>
      app.ctx.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.status, "failed")).all().find((d) => JSON.parse(d.body).liveStreamId === "li3"), 20_000);
    // The job is terminal: nothing can send a fourth attempt.
    const job = app.ctx.db.select().from(jobs).all().find((j) => JSON.parse(j.payload).deliveryId === delivery.id)!;
    expect(job.status).toBe("failed");
    expect(job.attempts).toBe(3);
    expect(rx.at("/down")).toHaveLength(3);
    expect(app.ctx.db.select().from(webhookAttempts).where(eq(webhookAttempts.deliveryId, delivery.id)).all()).toHaveLength(3);
  });

  test("an unreachable receiver is an attempt with an error, not a crash", async () => {
    const dead = Bun.serve({ port: 0, fetch: () => new Response() });
    const url = `http://127.0.0.1:${dead.port}/gone`;
    dead.stop(true);
    await subscribe(app, project.sandboxKey, url, ["video.encoding.quality.completed"]);
    app.ctx.db.transaction((tx) => emitEvent(app.ctx, tx, scope(), "video.encoding.quality.completed", { videoId: "vi4", encoding: "mp4", quality: "240p" }));
    const attempt = await waitFor("a failed attempt", () => app.ctx.db.select().from(webhookAttempts).all().find((a) => a.statusCode === null));
    expect(attempt.error).toBeTruthy();
  });
});

describe("durability", () => {
  test("a restart in the middle of the retries resumes the delivery", async () => {
    const dataDir = tempDir();
    const local = receiver({ "/resume": [500, 200] });
    let first: TestAppliance | undefined = await startTestAppliance({ dataDir });
    try {
      const p = await first.newProject("Restart");
      await subscribe(first, p.sandboxKey, local.url("/resume"), ["video.source.recorded"]);
      first.ctx.db.transaction((tx) => emitEvent(first!.ctx, tx, { projectId: p.projectId, environment: "sandbox" }, "video.source.recorded", { liveStreamId: "li5", videoId: "vi5" }));
      await waitFor("the first attempt", () => local.at("/resume").length === 1);
      await first.stop();
      first = undefined;
      const second = await startTestAppliance({ dataDir });
      try {
        await waitFor("the retried attempt after restart", () => local.at("/resume").length === 2, 20_000);
        const delivery = await waitFor("delivered", () => second.ctx.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.status, "delivered")).get());
        expect(second.ctx.db.select().from(webhookAttempts).where(eq(webhookAttempts.deliveryId, delivery.id)).all().map((a) => a.statusCode)).toEqual([500, 200]);
      } finally {
        await second.close();
      }
    } finally {
      await first?.stop();
      local.stop();
    }
  });
});

describe("address guard (VIDHOST_WEBHOOK_ALLOW_PRIVATE off)", () => {
  test("webhooks created while allowed are refused at connect time after a restart without it: failed attempts, nothing received", async () => {
    const dataDir = tempDir();
    const local = receiver({});
    const named = local.url("/named").replace("127.0.0.1", "localhost");
    let app: TestAppliance | undefined = await startTestAppliance({ dataDir });
    try {
      const p = await app.newProject("Guard");
      await subscribe(app, p.sandboxKey, named, ["video.source.recorded"]);
      await subscribe(app, p.sandboxKey, local.url("/literal"), ["video.source.recorded"]);
      await app.stop();
      app = undefined;
      // Retries shortened: the 3-attempt rule is what is tested, not the 3 s spacing.
      app = await startTestAppliance({ dataDir, env: { VIDHOST_WEBHOOK_ALLOW_PRIVATE: "false" }, tweak: (c) => void (c.webhookRetryDelayMs = 20) });
      const strict = app;
      expect((await strict.api(p.sandboxKey, "POST", "/webhooks", { events: ["video.source.recorded"], url: named })).status).toBe(400);
      strict.ctx.db.transaction((tx) => emitEvent(strict.ctx, tx, { projectId: p.projectId, environment: "sandbox" }, "video.source.recorded", { liveStreamId: "li6", videoId: "vi6" }));
      const failed = await waitFor("both deliveries failed", () => {
        const rows = strict.ctx.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.status, "failed")).all().filter((d) => JSON.parse(d.body).videoId === "vi6");
        return rows.length === 2 ? rows : null;
      });
      for (const delivery of failed) {
        const attempts = strict.ctx.db.select().from(webhookAttempts).where(eq(webhookAttempts.deliveryId, delivery.id)).all();
        expect(attempts).toHaveLength(3);
        for (const a of attempts) {
          expect(a.statusCode).toBeNull();
          expect(a.error).toMatch(/loopback address.*VIDHOST_WEBHOOK_ALLOW_PRIVATE/);
        }
      }
      expect(local.received).toHaveLength(0);
    } finally {
      await app?.close();
      local.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
