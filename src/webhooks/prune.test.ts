// The prune of webhook delivery history on a real SQLite file with an injected clock.
import { afterAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../../test/helpers";
import { openDatabase } from "../db/client";
import { migrate } from "../db/migrate";
import { projects, webhookAttempts, webhookDeliveries, webhooks } from "../db/schema";
import { DELIVERY_KEEP_MS, pruneDeliveries, RECENT_DELIVERIES_KEPT } from "./prune";

const dir = tempDir("vidhost-prune-");
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const { sqlite, db } = openDatabase(join(dir, "vidhost.db"));
migrate(sqlite);
const NOW = Date.UTC(2026, 10, 22, 12);
const HOUR = 3600_000;
const clock = { now: () => new Date(NOW) };
const OLD = DELIVERY_KEEP_MS + HOUR;

db.insert(projects).values({ id: "project_p", name: "P", createdAt: "2026-01-01T00:00:00+00:00" }).run();
function hook(id: string) {
  db.insert(webhooks).values({ id, projectId: "project_p", environment: "sandbox", url: "https://example.com", events: "[]", signatureSecret: "s", createdAt: "2026-01-01T00:00:00+00:00" }).run();
}
function delivery(id: string, webhookId: string, status: "pending" | "delivered" | "failed", ago: number, attempts = 2) {
  const at = new Date(NOW - ago).toISOString();
  db.insert(webhookDeliveries).values({ id, webhookId, event: "video.encoding.quality.completed", body: "{}", status, createdAt: at }).run();
  for (let i = 0; i < attempts; i++) db.insert(webhookAttempts).values({ deliveryId: id, attemptedAt: at, statusCode: 500, durationMs: 1 }).run();
}
const ids = (webhookId: string) => db.select({ id: webhookDeliveries.id }).from(webhookDeliveries).all().map((d) => d.id).filter((d) => d.startsWith(webhookId)).sort();

test("ended deliveries over 30 days old go with their attempts; recent and pending ones stay", async () => {
  hook("busy");
  // The newest 100 are recent, so the dashboard's list is full without the old ones.
  for (let i = 0; i < RECENT_DELIVERIES_KEPT; i++) delivery(`busy-new-${String(i).padStart(3, "0")}`, "busy", "delivered", HOUR + i, 1);
  for (let i = 0; i < 5; i++) delivery(`busy-old-${i}`, "busy", i % 2 ? "failed" : "delivered", OLD + i);
  delivery("busy-pending-old", "busy", "pending", OLD + 10);

  expect(await pruneDeliveries({ db, clock }, 2)).toBe(5);
  expect(ids("busy").filter((d) => !d.startsWith("busy-new-"))).toEqual(["busy-pending-old"]);
  expect(ids("busy").length).toBe(RECENT_DELIVERIES_KEPT + 1);
  // No attempt is left without its delivery.
  const orphans = sqlite.prepare("SELECT COUNT(*) AS n FROM webhook_attempts WHERE delivery_id NOT IN (SELECT id FROM webhook_deliveries)").get() as { n: number };
  expect(orphans.n).toBe(0);
  expect(db.select().from(webhookAttempts).all().length).toBe(RECENT_DELIVERIES_KEPT + 2);
});

test("a quiet webhook keeps its newest deliveries for the dashboard, however old", async () => {
  hook("quiet");
  for (let i = 0; i < RECENT_DELIVERIES_KEPT + 3; i++) delivery(`quiet-${String(i).padStart(3, "0")}`, "quiet", "delivered", OLD + i * HOUR, 1);
  expect(await pruneDeliveries({ db, clock })).toBe(3);
  // The three oldest went (largest i = oldest).
  expect(ids("quiet")).toEqual(Array.from({ length: RECENT_DELIVERIES_KEPT }, (_, i) => `quiet-${String(i).padStart(3, "0")}`));
  expect(await pruneDeliveries({ db, clock })).toBe(0);
});
