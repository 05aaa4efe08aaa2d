// The single-file executable: built like `bun run build`, copied alone into an empty directory,
// started there with every port 0, probed over HTTP, then stopped with SIGTERM.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { buildBinary } from "../scripts/build";
import { basic, tempDir, waitFor } from "./helpers";

/** The environment without VIDHOST_* settings, so only the flags given count. */
function cleanEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("VIDHOST_")) env[k] = v;
  return env;
}

/** Collects a pipe's text as it arrives. */
function collect(stream: ReadableStream<Uint8Array>): { text: string; done: Promise<void> } {
  const out = { text: "", done: Promise.resolve() };
  const decoder = new TextDecoder();
  out.done = (async () => {
    for await (const chunk of stream) out.text += decoder.decode(chunk, { stream: true });
    out.text += decoder.decode();
  })();
  return out;
}

describe("vidhost executable", () => {
  let buildDir = "";
  let runDir = "";
  let binary = "";
  let running: Bun.Subprocess | undefined;

  beforeAll(async () => {
    buildDir = tempDir("vidhost-build-");
    runDir = tempDir("vidhost-bin-");
    const built = await buildBinary({ outfile: join(buildDir, "vidhost") });
    binary = join(runDir, "vidhost");
    copyFileSync(built.outfile, binary); // copyFileSync keeps the mode bits, so it stays executable
    rmSync(buildDir, { recursive: true, force: true });
  });

  afterAll(() => {
    if (running && running.exitCode === null && running.signalCode === null) running.kill("SIGKILL");
    for (const dir of [buildDir, runDir]) if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test("--help lists the settings", async () => {
    const proc = Bun.spawn([binary, "--help"], { cwd: runDir, env: cleanEnv(), stdout: "pipe", stderr: "pipe" });
    const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
    expect(code).toBe(0);
    expect(out).toContain("VIDHOST_API_PORT");
  });

  test("serves from an empty directory and stops cleanly on SIGTERM", async () => {
    const proc = Bun.spawn([binary, "serve", "--api-port", "0", "--sandbox-port", "0", "--admin-port", "0", "--rtmp-port", "0"], {
      cwd: runDir,
      env: cleanEnv(),
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    running = proc;
    const stdout = collect(proc.stdout);
    const stderr = collect(proc.stderr);
    let exited = false;
    proc.exited.then(() => (exited = true));
    try {
      const line = await waitFor("the listening log line", () => {
        if (exited) throw new Error(`vidhost exited with ${proc.exitCode}:\n${stderr.text}\n${stdout.text}`);
        return stderr.text.split("\n").find((l) => / listening \{/.test(l));
      }, 60_000);
      const { ports } = JSON.parse(line.slice(line.indexOf("{"))) as { ports: { api: number; sandbox: number; admin: number } };
      for (const port of [ports.api, ports.sandbox, ports.admin]) {
        expect(port).toBeGreaterThan(0);
        const res = await fetch(`http://127.0.0.1:${port}/health`);
        expect(res.status).toBe(200);
        expect(res.headers.get("content-type")).toBe("application/json");
        expect(await res.json()).toEqual({ status: "ok" });
      }

      // The dashboard is embedded: its page and the files it names are served without web/ around.
      const page = await fetch(`http://127.0.0.1:${ports.admin}/`);
      expect(page.status).toBe(200);
      expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
      const assets = [...(await page.text()).matchAll(/(?:src|href)="(\/dashboard\/assets\/[^"]+)"/g)].map((m) => m[1]);
      expect(assets.map((a) => a.split(".").pop()).sort()).toEqual(["css", "js"]);
      for (const asset of assets) {
        const res = await fetch(`http://127.0.0.1:${ports.admin}${asset}`);
        expect(res.status).toBe(200);
        expect((await res.text()).length).toBeGreaterThan(1000);
      }

      // The welcome text comes after the log line; wait for the key rather than assume it is there.
      const key = await waitFor("the printed sandbox key", () => /Sandbox API key \(shown once\):\s*(\S+)/.exec(stdout.text)?.[1]);
      expect(stdout.text).toMatch(/Admin key \(shown once, keep it\): \S+/);
      const res = await fetch(`http://127.0.0.1:${ports.sandbox}/webhooks`, { headers: { authorization: basic(key) } });
      expect(res.status).toBe(200);

      expect(existsSync(join(runDir, "data", "vidhost.db"))).toBe(true);
    } finally {
      if (!exited) proc.kill("SIGTERM");
    }
    expect(await proc.exited).toBe(0);
    await Promise.all([stdout.done, stderr.done]);
  });
});
