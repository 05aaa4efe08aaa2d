// The official api.video Node client drives /webhooks on a real server.
import { afterAll, beforeAll, expect, test } from "bun:test";
import ApiVideoClient from "@api.video/nodejs-client";
import { startTestAppliance, type TestAppliance } from "../helpers";

let app: TestAppliance;
let client: ApiVideoClient;

beforeAll(async () => {
  app = await startTestAppliance();
  client = new ApiVideoClient({ apiKey: app.sandboxKey, baseUri: app.urls.sandbox });
});
afterAll(() => app.close());

test("create, list, get and delete webhooks with @api.video/nodejs-client", async () => {
  const created = await client.webhooks.create({ events: ["video.encoding.quality.completed"], url: "https://example.com/a" });
  expect(created.webhookId).toMatch(/^webhook_/);
  expect(created.signatureSecret).toMatch(/^sig_sec_/);
  expect(created.createdAt).toBeInstanceOf(Date);
  await client.webhooks.create({ events: ["live-stream.broadcast.started"], url: "https://example.com/b" });

  const all = await client.webhooks.list();
  expect(all.data.map((w) => w.url)).toEqual(["https://example.com/a", "https://example.com/b"]);
  expect(all.pagination.itemsTotal).toBe(2);

  const filtered = await client.webhooks.list({ events: "live-stream.broadcast.started", pageSize: 1, currentPage: 1 });
  expect(filtered.data).toHaveLength(1);
  expect(filtered.data[0].url).toBe("https://example.com/b");

  const got = await client.webhooks.get(created.webhookId!);
  expect(got.url).toBe("https://example.com/a");

  await client.webhooks.delete(created.webhookId!);
  const error = await client.webhooks.get(created.webhookId!).catch((e) => e);
  expect(error.code).toBe(404);
  expect(error.problemDetails.name).toBe("webhookId");
  expect((await client.webhooks.list()).data).toHaveLength(1);
});

test("the client surfaces validation problems", async () => {
  const error = await client.webhooks.create({ events: ["not-an-event"], url: "https://example.com" }).catch((e) => e);
  expect(error.code).toBe(400);
  expect(error.problemDetails.name).toBe("events[0]");
});
