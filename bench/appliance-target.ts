// The real appliance for bench/encode.ts and bench/upload.ts, in its own process so its CPU and
// memory are measured apart from the load generator.
//   bun bench/appliance-target.ts ['{"VIDHOST_…":"…"}']   extra settings as one JSON object
// Ports 0, a temp data directory (removed on stop), rate limits out of the way, production enabled
// on the default project with one production key (production: no 30 s cut, no watermark, and the
// remux fast path is allowed). Prints one JSON line on stdout once ready; stops on SIGTERM/SIGINT.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../src/config";
import { createLogger } from "../src/log";
import { startAppliance } from "../src/main";

/** What the parent reads from the first stdout line. */
export interface ApplianceInfo {
  pid: number;
  dataDir: string;
  projectId: string;
  productionUrl: string;
  productionKey: string;
  sandboxUrl: string;
  sandboxKey: string;
}

const ADMIN_KEY = "bench-admin-key-0123456789";
const UNLIMITED = ["sandbox", "production"].flatMap((env) => ["uploads", "writes", "reads"].map((c) => `${env}.${c}=100000000`)).join(",");

const extra = JSON.parse(process.argv[2] ?? "{}") as Record<string, string>;
const dataDir = mkdtempSync(join(tmpdir(), "vidhost-bench-"));
const config = loadConfig([], {
  VIDHOST_DATA_DIR: dataDir, VIDHOST_API_PORT: "0", VIDHOST_SANDBOX_PORT: "0", VIDHOST_ADMIN_PORT: "0", VIDHOST_RTMP_PORT: "0",
  VIDHOST_ADMIN_KEY: ADMIN_KEY, VIDHOST_LOG_LEVEL: "error", VIDHOST_RATE_LIMITS: UNLIMITED,
  // bench/encode.ts times the encode by webhooks received on loopback.
  VIDHOST_WEBHOOK_ALLOW_PRIVATE: "true",
  ...extra,
});
const appliance = await startAppliance(config, { log: createLogger(config.logLevel) });
const stop = () => appliance.stop().finally(() => {
  rmSync(dataDir, { recursive: true, force: true });
  process.exit(0);
});
process.once("SIGTERM", stop);
process.once("SIGINT", stop);

const first = appliance.firstStart.defaultProject;
if (!first) throw new Error("no bootstrap project (data directory not fresh?)");
const admin = async (method: string, path: string, body: unknown) => {
  const res = await fetch(appliance.ctx.urls.admin + path, {
    method,
    headers: { authorization: `Basic ${Buffer.from(`${ADMIN_KEY}:`).toString("base64")}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`admin ${method} ${path} answered ${res.status}: ${await res.text()}`);
  return res.json() as Promise<Record<string, unknown>>;
};
await admin("PATCH", `/projects/${first.projectId}`, { production_enabled: true });
const key = await admin("POST", `/projects/${first.projectId}/api-keys`, { name: "bench", environment: "production" });

const info: ApplianceInfo = {
  pid: process.pid,
  dataDir,
  projectId: first.projectId,
  productionUrl: appliance.ctx.urls.production,
  productionKey: String(key.value),
  sandboxUrl: appliance.ctx.urls.sandbox,
  sandboxKey: first.sandboxKey,
};
console.log(JSON.stringify(info));
