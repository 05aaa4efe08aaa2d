// Shared test fixtures: a real appliance on port 0 with its own data directory.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Clock } from "../src/clock";
import { loadConfig, type Config } from "../src/config";
import { createLogger, type Logger } from "../src/log";
import { startAppliance, type Appliance } from "../src/main";

export interface TestAppliance extends Appliance {
  dataDir: string;
  adminKey: string;
  sandboxKey: string;
  projectId: string;
  urls: { production: string; sandbox: string; admin: string };
  /** Authenticated admin call (JSON in, Response out). */
  admin(method: string, path: string, body?: unknown): Promise<Response>;
  /** Authenticated main-API call with an API key on one environment's listener. */
  api(key: string, method: string, path: string, body?: unknown, env?: "sandbox" | "production"): Promise<Response>;
  /** A new project with production enabled and a key per environment. */
  newProject(name?: string): Promise<{ projectId: string; sandboxKey: string; productionKey: string }>;
  /** Stops and removes the data directory. */
  close(): Promise<void>;
}

export const basic = (key: string) => `Basic ${Buffer.from(`${key}:`).toString("base64")}`;

export function tempDir(prefix = "vidhost-test-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Boots the real appliance on port 0 in a fresh data directory (or the one given, to test restarts). */
export async function startTestAppliance(options: { dataDir?: string; env?: Record<string, string>; clock?: Clock; tweak?: (c: Config) => void; log?: Logger } = {}): Promise<TestAppliance> {
  const dataDir = options.dataDir ?? tempDir();
  const adminKey = "test-admin-key-0123456789";
  const config = loadConfig([], {
    VIDHOST_DATA_DIR: dataDir, VIDHOST_API_PORT: "0", VIDHOST_SANDBOX_PORT: "0", VIDHOST_ADMIN_PORT: "0", VIDHOST_RTMP_PORT: "0",
    VIDHOST_ADMIN_KEY: adminKey, VIDHOST_LOG_LEVEL: process.env.VIDHOST_TEST_LOG ?? "error",
    // Test receivers listen on 127.0.0.1, which webhooks refuse by default; tests of the refusal pass "false".
    VIDHOST_WEBHOOK_ALLOW_PRIVATE: "true",
    ...options.env,
  });
  options.tweak?.(config);
  const appliance = await startAppliance(config, { clock: options.clock, log: options.log ?? createLogger(config.logLevel) });
  const urls = { production: appliance.ctx.urls.production, sandbox: appliance.ctx.urls.sandbox, admin: appliance.ctx.urls.admin };
  const call = (base: string, key: string, method: string, path: string, body?: unknown) =>
    fetch(base + path, {
      method,
      headers: { authorization: basic(key), ...(body !== undefined ? { "content-type": "application/json" } : {}) },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
  const admin = (method: string, path: string, body?: unknown) => call(urls.admin, adminKey, method, path, body);
  const first = appliance.firstStart.defaultProject;
  const t: TestAppliance = {
    ...appliance,
    dataDir,
    adminKey,
    sandboxKey: first?.sandboxKey ?? "",
    projectId: first?.projectId ?? "",
    urls,
    admin,
    api: (key, method, path, body, env = "sandbox") => call(env === "sandbox" ? urls.sandbox : urls.production, key, method, path, body),
    async newProject(name = "Test project") {
      const project = (await (await admin("POST", "/projects", { name })).json()) as { project_id: string };
      await admin("PATCH", `/projects/${project.project_id}`, { production_enabled: true });
      const key = async (environment: string) =>
        ((await (await admin("POST", `/projects/${project.project_id}/api-keys`, { name: environment, environment })).json()) as { value: string }).value;
      return { projectId: project.project_id, sandboxKey: await key("sandbox"), productionKey: await key("production") };
    },
    async close() {
      await appliance.stop();
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return t;
}

/** Polls `check` until it returns a truthy value; fails with `what` after `timeoutMs`. Never a fixed sleep. */
export async function waitFor<T>(what: string, check: () => T | Promise<T>, timeoutMs = 30_000, intervalMs = 25): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
