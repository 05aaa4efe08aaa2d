import { expect, test } from "bun:test";
import { ConfigError, helpText, loadConfig } from "./config";

test("defaults follow DESIGN.md", () => {
  const c = loadConfig([], {});
  expect([c.host, c.apiPort, c.sandboxPort, c.adminPort, c.rtmpPort]).toEqual(["127.0.0.1", 8080, 8081, 8090, 1935]);
  expect(c.dataDir).toEndWith("/data");
  expect(c.webhookLimit).toBe(20);
  expect(c.webhookAllowPrivate).toBe(false);
  expect(c.rateLimits.sandbox).toEqual({ uploads: 40, writes: 40, reads: 100 });
});

test("flags win over environment variables, in both flag forms", () => {
  const c = loadConfig(["--api-port", "0", "--host=0.0.0.0"], { VIDHOST_API_PORT: "9000", VIDHOST_SANDBOX_PORT: "9001" });
  expect([c.apiPort, c.sandboxPort, c.host]).toEqual([0, 9001, "0.0.0.0"]);
  expect(loadConfig(["--webhook-allow-private", "true"], {}).webhookAllowPrivate).toBe(true);
  expect(loadConfig([], { VIDHOST_WEBHOOK_ALLOW_PRIVATE: "true" }).webhookAllowPrivate).toBe(true);
});

test("bad values are clear errors", () => {
  expect(() => loadConfig(["--api-port", "http"], {})).toThrow(ConfigError);
  expect(() => loadConfig(["--nope", "1"], {})).toThrow("unknown flag --nope");
  expect(() => loadConfig([], { VIDHOST_RATE_LIMITS: "sandbox.reads=x" })).toThrow("VIDHOST_RATE_LIMITS");
  expect(loadConfig([], { VIDHOST_RATE_LIMITS: "production.writes=7" }).rateLimits.production.writes).toBe(7);
  expect(() => loadConfig([], { VIDHOST_TRUSTED_PROXIES: "127.0.0.1, proxy.local" })).toThrow('"proxy.local" is not an IP address');
});

test("trusted proxies: loopback by default, a list, or none", () => {
  expect([...loadConfig([], {}).trustedProxies]).toEqual(["127.0.0.1", "::1"]);
  expect([...loadConfig(["--trusted-proxies", " 10.0.0.2 ,fd00::1"], {}).trustedProxies]).toEqual(["10.0.0.2", "fd00::1"]);
  expect(loadConfig([], { VIDHOST_TRUSTED_PROXIES: "" }).trustedProxies.size).toBe(0);
});

test("--help lists every setting", () => {
  for (const name of ["VIDHOST_HOST", "VIDHOST_API_PORT", "VIDHOST_SANDBOX_PORT", "VIDHOST_ADMIN_PORT", "VIDHOST_RTMP_PORT", "VIDHOST_PUBLIC_URL", "VIDHOST_DATA_DIR", "VIDHOST_ADMIN_KEY", "--data-dir"]) {
    expect(helpText()).toContain(name);
  }
});
