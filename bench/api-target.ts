// A server for bench/api.ts, in its own process so the load generator and the two servers compared
// are measured alike.
//   bun bench/api-target.ts appliance   the real appliance (ports 0, temp data dir) with one webhook
//   bun bench/api-target.ts bare JSON   a bare Bun.serve answering that JSON object on any path
// Prints one JSON line on stdout ({url, authorization?, body}) once ready; stops on SIGTERM/SIGINT.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../src/config";
import { createLogger } from "../src/log";
import { startAppliance } from "../src/main";

const [mode, arg] = process.argv.slice(2);
const onStop = (stop: () => Promise<void> | void) => {
  const handler = () => Promise.resolve(stop()).finally(() => process.exit(0));
  process.once("SIGTERM", handler);
  process.once("SIGINT", handler);
};

if (mode === "appliance") {
  const dataDir = mkdtempSync(join(tmpdir(), "vidhost-bench-"));
  const config = loadConfig([], {
    VIDHOST_DATA_DIR: dataDir, VIDHOST_API_PORT: "0", VIDHOST_SANDBOX_PORT: "0", VIDHOST_ADMIN_PORT: "0", VIDHOST_RTMP_PORT: "0",
    VIDHOST_ADMIN_KEY: "bench-admin-key-0123456789", VIDHOST_LOG_LEVEL: "error",
    VIDHOST_RATE_LIMITS: "sandbox.reads=100000000",
  });
  const appliance = await startAppliance(config, { log: createLogger(config.logLevel) });
  onStop(async () => {
    await appliance.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const key = appliance.firstStart.defaultProject?.sandboxKey;
  if (!key) throw new Error("no bootstrap sandbox key (data directory not fresh?)");
  const authorization = `Basic ${Buffer.from(`${key}:`).toString("base64")}`;
  const base = appliance.ctx.urls.sandbox;
  const created = await fetch(`${base}/webhooks`, {
    method: "POST",
    headers: { authorization, "content-type": "application/json" },
    body: JSON.stringify({ events: ["video.encoding.quality.completed"], url: "https://example.com/vidhost-bench" }),
  });
  if (created.status !== 201) throw new Error(`creating the webhook answered ${created.status}: ${await created.text()}`);
  const { webhookId } = (await created.json()) as { webhookId: string };
  const url = `${base}/webhooks/${webhookId}`;
  const got = await fetch(url, { headers: { authorization } });
  if (got.status !== 200) throw new Error(`GET ${url} answered ${got.status}`);
  console.log(JSON.stringify({ url, authorization, body: await got.text() }));
} else if (mode === "bare" && arg) {
  const object = JSON.parse(arg) as unknown;
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => Response.json(object) });
  onStop(() => server.stop(true));
  console.log(JSON.stringify({ url: `http://127.0.0.1:${server.port}/webhooks/bench`, body: JSON.stringify(object) }));
} else {
  console.error("usage: bun bench/api-target.ts appliance | bare '<json object>'");
  process.exit(2);
}
