// API throughput and latency: authenticated GET /webhooks/{id} on the real appliance against a bare
// Bun.serve answering a JSON object of the same size, each server in its own process, loaded by wrk
// (64 connections, 2 threads). Not a test: `bun bench/api.ts [seconds]`.
// Goal: appliance/bare requests per second >= 0.5 and appliance p99 < 10 ms.
// Each server's CPU time per request (user + system, from /proc) is shown too: unlike throughput, it
// hardly moves when other work shares the machine.
import { spawnSync } from "node:child_process";
import { cpuMs } from "./child";

const CONNECTIONS = 64;
const THREADS = 2;
const SECONDS = Number(process.argv[2] ?? 10);
const WARMUP_SECONDS = 2;
const GOAL_RATIO = 0.5;
const GOAL_P99_MS = 10;

interface Target {
  proc: Bun.Subprocess<"ignore", "pipe", "inherit">;
  url: string;
  authorization?: string;
  body: string;
}

interface WrkResult {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  non2xx: number;
  socketErrors: string;
  /** The server's CPU time per answered request, µs. */
  cpuUs: number;
}

function ensureWrk(): void {
  if (Bun.which("wrk")) return;
  const root = process.getuid?.() === 0 && Bun.which("apt-get");
  if (root) {
    console.error("wrk is missing: installing the Debian package");
    const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
    const update = spawnSync("apt-get", ["update", "-qq"], { stdio: ["ignore", "inherit", "inherit"], env });
    const install = update.status === 0 && spawnSync("apt-get", ["install", "-y", "-qq", "wrk"], { stdio: ["ignore", "inherit", "inherit"], env });
    if (install && install.status === 0 && Bun.which("wrk")) return;
  }
  console.error("bench/api.ts needs wrk: install it with `sudo apt-get install wrk`.");
  process.exit(1);
}

async function startTarget(args: string[]): Promise<Target> {
  const proc = Bun.spawn([process.execPath, `${import.meta.dir}/api-target.ts`, ...args], {
    stdin: "ignore",
    stdout: "pipe",
    stderr: "inherit",
  });
  const reader = proc.stdout.getReader();
  const decoder = new TextDecoder();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`bench target ${args[0]} exited (${await proc.exited}) before it was ready`);
    text += decoder.decode(value, { stream: true });
  }
  reader.releaseLock();
  return { proc, ...(JSON.parse(text.slice(0, text.indexOf("\n"))) as Omit<Target, "proc">) };
}

function toMs(value: string, unit: string): number {
  const n = Number(value);
  return unit === "us" ? n / 1000 : unit === "ms" ? n : unit === "s" ? n * 1000 : unit === "m" ? n * 60_000 : NaN;
}

async function wrk(target: Target, seconds: number): Promise<WrkResult> {
  const cpuBefore = cpuMs(target.proc.pid) ?? 0;
  const args = ["wrk", `-t${THREADS}`, `-c${CONNECTIONS}`, `-d${seconds}s`, "--latency"];
  if (target.authorization) args.push("-H", `Authorization: ${target.authorization}`);
  args.push(target.url);
  const proc = Bun.spawn(args, { stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`wrk exited ${code}:\n${out}${err}`);
  const latency = (pct: string) => {
    const m = new RegExp(`^\\s*${pct}%\\s+([\\d.]+)(us|ms|s|m)\\s*$`, "m").exec(out);
    if (!m) throw new Error(`no ${pct}% latency in wrk output:\n${out}`);
    return toMs(m[1], m[2]);
  };
  const rps = /^Requests\/sec:\s+([\d.]+)/m.exec(out);
  if (!rps) throw new Error(`no Requests/sec in wrk output:\n${out}`);
  const requests = Number(/^\s*(\d+) requests in/m.exec(out)?.[1] ?? 0);
  const cpuUsed = (cpuMs(target.proc.pid) ?? 0) - cpuBefore;
  return {
    rps: Number(rps[1]),
    p50: latency("50"),
    p99: latency("99"),
    requests,
    non2xx: Number(/Non-2xx or 3xx responses:\s*(\d+)/.exec(out)?.[1] ?? 0),
    socketErrors: /Socket errors:.*$/m.exec(out)?.[0] ?? "",
    cpuUs: requests ? (cpuUsed * 1000) / requests : 0,
  };
}

async function stop(target: Target | undefined): Promise<void> {
  if (!target || target.proc.exitCode !== null) return;
  target.proc.kill("SIGTERM");
  await target.proc.exited;
}

ensureWrk();
let appliance: Target | undefined;
let bare: Target | undefined;
try {
  appliance = await startTarget(["appliance"]);
  bare = await startTarget(["bare", appliance.body]);
  const check = await fetch(bare.url);
  const bareBody = await check.text();
  if (check.status !== 200 || bareBody.length !== appliance.body.length) {
    throw new Error(`bare server answered ${check.status} with ${bareBody.length} bytes, expected ${appliance.body.length}`);
  }

  console.log(`GET /webhooks/{id}: ${appliance.body.length}-byte JSON body; wrk ${THREADS} threads, ${CONNECTIONS} connections, ${SECONDS} s (after ${WARMUP_SECONDS} s warm-up)`);
  await wrk(bare, WARMUP_SECONDS);
  const bareResult = await wrk(bare, SECONDS);
  await wrk(appliance, WARMUP_SECONDS);
  const applianceResult = await wrk(appliance, SECONDS);

  const row = (name: string, r: WrkResult) =>
    `${name.padEnd(10)} ${r.rps.toFixed(0).padStart(9)} req/s   p50 ${r.p50.toFixed(2).padStart(6)} ms   p99 ${r.p99.toFixed(2).padStart(6)} ms   server CPU ${r.cpuUs.toFixed(1).padStart(5)} µs/request` +
    (r.non2xx ? `   ${r.non2xx} non-2xx!` : "") +
    (r.socketErrors ? `   ${r.socketErrors}` : "");
  console.log(row("bare", bareResult));
  console.log(row("appliance", applianceResult));
  const ratio = applianceResult.rps / bareResult.rps;
  const ratioOk = ratio >= GOAL_RATIO;
  const p99Ok = applianceResult.p99 < GOAL_P99_MS;
  console.log(`ratio appliance/bare: ${ratio.toFixed(2)} (server CPU per request ${(applianceResult.cpuUs / bareResult.cpuUs).toFixed(2)}×)`);
  console.log(`goal: ratio >= ${GOAL_RATIO} (${ratioOk ? "met" : "MISSED"}), appliance p99 < ${GOAL_P99_MS} ms at ${CONNECTIONS} connections (${p99Ok ? "met" : "MISSED"})`);
  if (applianceResult.non2xx || bareResult.non2xx) console.log("warning: some answers were not 2xx; the figures above are not comparable");
} finally {
  await Promise.all([stop(appliance), stop(bare)]);
}
