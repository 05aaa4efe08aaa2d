// Live latency: a 1080p30 H.264/AAC broadcast (testsrc2 + sine, x264 with 2 s keyframes as api.video
// recommends) published in real time to the appliance's RTMP port; the bench polls the live playlist
// at assets.hls and reports
//   - time from the first published frame to the first playable live segment (listed and fetched),
//   - live latency: when each new segment becomes available, how old its first frame is, from its
//     EXT-X-PROGRAM-DATE-TIME and from the publisher's own clock (first frame + media time), plus a
//     player's latency (hls.js in the player page holds liveSyncDuration = 3 s behind the live edge),
//   - the CPU the appliance used (its process and its ffmpeg children) per second of broadcast.
// Baseline, measured in the same run: ffmpeg alone as the RTMP server (-listen 1) writing the same
// HLS, i.e. what any ffmpeg-based live path costs; Vidhost's figures are also printed as ratios to it.
// Not a test: `bun bench/live.ts [seconds=60] [--size 1920x1080] [--gop 2] [--baseline-seconds 20]`.
// Goals on this machine kind: first segment <= 3 s, latency <= 5 s.
import net from "node:net";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const GOAL_FIRST_SEGMENT_S = 3;
const GOAL_LATENCY_S = 5;
/** The player page's hls.js liveSyncDuration (src/delivery/player.ts). */
const PLAYER_HOLD_BACK_S = 3;
const ADMIN_KEY = "bench-admin-key-0123456789";

const args = process.argv.slice(2);
const flag = (name: string, fallback: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};

// ---- the appliance, in its own process (so its CPU is its own) ----
if (args[0] === "--appliance") {
  const { loadConfig } = await import("../src/config");
  const { createLogger } = await import("../src/log");
  const { startAppliance } = await import("../src/main");
  const dataDir = mkdtempSync(join(tmpdir(), "vidhost-bench-live-"));
  const config = loadConfig([], {
    VIDHOST_DATA_DIR: dataDir, VIDHOST_API_PORT: "0", VIDHOST_SANDBOX_PORT: "0", VIDHOST_ADMIN_PORT: "0", VIDHOST_RTMP_PORT: "0",
    VIDHOST_ADMIN_KEY: ADMIN_KEY, VIDHOST_LOG_LEVEL: "info",
    // The recording is finished after the measurement: the broadcast waits out a long window.
    VIDHOST_LIVE_RECONNECT_S: "3600",
  });
  // Info on stderr: the bench takes the first frame's arrival from the "broadcast started" line.
  const appliance = await startAppliance(config, { log: createLogger("info") });
  const first = appliance.firstStart.defaultProject!;
  const admin = async (method: string, path: string, body: unknown) => {
    const res = await fetch(appliance.ctx.urls.admin + path, {
      method, headers: { authorization: `Basic ${btoa(`${ADMIN_KEY}:`)}`, "content-type": "application/json" }, body: JSON.stringify(body),
    });
    return (await res.json()) as Record<string, unknown>;
  };
  // Production: the sandbox would cut the broadcast at 30 s.
  await admin("PATCH", `/projects/${first.projectId}`, { production_enabled: true });
  const key = await admin("POST", `/projects/${first.projectId}/api-keys`, { name: "bench", environment: "production" });
  const stop = () => appliance.stop().finally(() => {
    rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  });
  process.once("SIGTERM", stop);
  console.log(JSON.stringify({ pid: process.pid, api: appliance.ctx.urls.production, key: key.value, rtmpPort: appliance.ports.rtmp }));
  await new Promise(() => {});
}

const SECONDS = Number(args.find((a, i) => /^\d+$/.test(a) && !args[i - 1]?.startsWith("--")) ?? 60);
const SIZE = flag("--size", "1920x1080");
const GOP_S = Number(flag("--gop", "2"));
const BASELINE_SECONDS = Number(flag("--baseline-seconds", "20"));
const CLK_TCK = 100;

/** utime+stime (+cutime+cstime with `children`) of a process, in seconds (children count once they are reaped). */
function cpuSeconds(pid: number, children = true): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12]) + (children ? Number(fields[13]) + Number(fields[14]) : 0)) / CLK_TCK;
}

function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === pid) out.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

function publisher(url: string, seconds: number) {
  const fps = 30;
  return Bun.spawn([
    "ffmpeg", "-hide_banner", "-loglevel", "error", "-re",
    "-f", "lavfi", "-i", `testsrc2=size=${SIZE}:rate=${fps}`, "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000",
    "-t", String(seconds),
    "-c:v", "libx264", "-preset", "ultrafast", "-tune", "zerolatency", "-pix_fmt", "yuv420p",
    "-g", String(GOP_S * fps), "-keyint_min", String(GOP_S * fps), "-sc_threshold", "0", // keyframes every GOP_S seconds
    "-b:v", "4500k", "-maxrate", "4500k", "-bufsize", "9000k", // api.video's encoder guide, 1080p30
    "-c:a", "aac", "-b:a", "128k", "-ar", "48000",
    "-f", "flv", url,
  ], { stdin: "ignore", stdout: "ignore", stderr: "inherit" });
}

interface Observation { firstSegmentS: number; pdtAges: number[]; trueAges: number[]; playerLatencies: number[]; pdtOffsetS: number | null }

/**
 * Polls a live playlist (`read` gives its text or null) every 20 ms until `until` resolves; records,
 * for every segment when it first appears, its age from its PDT and from the publisher's clock (t0 +
 * its media start), and a player's latency (now − end of the newest media + hold-back).
 */
async function observe(read: () => Promise<string | null>, fetchSegment: (uri: string) => Promise<boolean>, spawnedAt: number, firstFrameAt: () => number | null, until: Promise<unknown>): Promise<Observation> {
  let done = false;
  void until.then(() => (done = true));
  const seen = new Map<number, { start: number; duration: number }>();
  const result: Observation = { firstSegmentS: NaN, pdtAges: [], trueAges: [], playerLatencies: [], pdtOffsetS: null };
  let mediaEnd = 0;
  while (!done) {
    const text = await read();
    const now = Date.now();
    if (text) {
      let seq = Number(/#EXT-X-MEDIA-SEQUENCE:(\d+)/.exec(text)?.[1] ?? 0);
      let duration = 0;
      let pdt: number | null = null;
      for (const line of text.split("\n")) {
        if (line.startsWith("#EXTINF:")) duration = parseFloat(line.slice(8));
        else if (line.startsWith("#EXT-X-PROGRAM-DATE-TIME:")) pdt = Date.parse(line.slice(25).replace(/([+-]\d\d)(\d\d)$/, "$1:$2"));
        else if (line && !line.startsWith("#")) {
          if (!seen.has(seq)) {
            const start = seen.get(seq - 1) ? seen.get(seq - 1)!.start + seen.get(seq - 1)!.duration : mediaEnd;
            seen.set(seq, { start, duration });
            mediaEnd = start + duration;
            if (Number.isNaN(result.firstSegmentS) && (await fetchSegment(line))) result.firstSegmentS = (Date.now() - spawnedAt) / 1000;
            const t0 = firstFrameAt();
            if (pdt !== null) result.pdtAges.push((now - pdt) / 1000);
            if (t0 !== null) {
              result.trueAges.push((now - (t0 + start * 1000)) / 1000);
              if (seq === 0 && pdt !== null) result.pdtOffsetS = (pdt - t0) / 1000;
              result.playerLatencies.push((now - (t0 + mediaEnd * 1000)) / 1000 + PLAYER_HOLD_BACK_S);
            }
          }
          seq++;
          pdt = null;
        }
      }
    }
    await Bun.sleep(20);
  }
  return result;
}

const median = (xs: number[]) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] : NaN);
const p95 = (xs: number[]) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.95))] : NaN);
const f = (n: number, digits = 2) => (Number.isFinite(n) ? n.toFixed(digits) : "n/a");

async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

/**
 * Waits until something listens on 127.0.0.1:`port`, read from /proc/net/tcp: a probing connection
 * would be the one client `ffmpeg -listen 1` accepts.
 */
async function listening(port: number, timeoutMs = 10_000): Promise<void> {
  const local = `0100007F:${port.toString(16).toUpperCase().padStart(4, "0")}`;
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await Bun.sleep(20)) {
    const table = await Bun.file("/proc/net/tcp").text();
    // Columns: sl, local_address, rem_address, st (0A = LISTEN).
    if (table.split("\n").some((line) => { const c = line.trim().split(/\s+/); return c[1] === local && c[3] === "0A"; })) return;
  }
  throw new Error(`nothing listens on 127.0.0.1:${port} after ${timeoutMs} ms`);
}

// ---- baseline: ffmpeg alone as RTMP server writing the same live HLS ----
async function baseline() {
  const { liveIngestArgs } = await import("../src/media/args-live");
  const dir = mkdtempSync(join(tmpdir(), "vidhost-bench-baseline-"));
  const port = await freePort();
  const hlsArgs = liveIngestArgs(`rtmp://127.0.0.1:${port}/live/b`, {
    video: "copy", audio: "copy", hlsDir: dir, segmentS: 1, listSize: 6, startNumber: 0, discontinuity: false, rungs: [], frameRate: 30,
  });
  const server = Bun.spawn(["ffmpeg", "-hide_banner", "-loglevel", "error", "-listen", "1", ...hlsArgs], { stdin: "ignore", stdout: "ignore", stderr: "inherit" });
  await listening(port); // ffmpeg -listen has no readiness signal, and the publisher retries nothing
  const spawnedAt = Date.now();
  const pub = publisher(`rtmp://127.0.0.1:${port}/live/b`, BASELINE_SECONDS);
  const playlist = join(dir, "source", "index.m3u8");
  const obs = await observe(
    async () => (await Bun.file(playlist).exists() ? Bun.file(playlist).text() : null),
    async (uri) => Bun.file(join(dir, "source", uri)).exists(),
    spawnedAt, () => null, pub.exited,
  );
  await server.exited;
  const cpu = server.resourceUsage()!.cpuTime;
  rmSync(dir, { recursive: true, force: true });
  return { obs, cpuPerS: (Number(cpu.user + cpu.system) / 1e6) / BASELINE_SECONDS };
}

// ---- Vidhost ----
async function vidhost() {
  const target = Bun.spawn([process.execPath, import.meta.path, "--appliance"], { stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  // The appliance logs when the first frame of a publish arrives, to the millisecond.
  let firstFrameAt: number | null = null;
  void (async () => {
    let text = "";
    for await (const chunk of target.stderr) {
      text += new TextDecoder().decode(chunk);
      const m = /^(\S+) info {2}live: broadcast started/m.exec(text);
      if (m && firstFrameAt === null) firstFrameAt = Date.parse(m[1]);
      if (text.length > 65536) text = text.slice(-4096);
    }
  })();
  const reader = target.stdout.getReader();
  let line = "";
  while (!line.includes("\n")) line += new TextDecoder().decode((await reader.read()).value);
  const info = JSON.parse(line) as { pid: number; api: string; key: string; rtmpPort: number };
  const call = async (method: string, path: string, body?: unknown) => (await fetch(info.api + path, {
    method, headers: { authorization: `Basic ${btoa(`${info.key}:`)}`, "content-type": "application/json" }, body: body ? JSON.stringify(body) : undefined,
  })).json() as Promise<Record<string, any>>;
  const stream = await call("POST", "/live-streams", { name: "bench" });
  const hls = stream.assets.hls as string;

  const cpuBefore = cpuSeconds(info.pid);
  const ownBefore = cpuSeconds(info.pid, false);
  const spawnedAt = Date.now();
  const pub = publisher(`rtmp://127.0.0.1:${info.rtmpPort}/s/${stream.streamKey}`, SECONDS);
  const obs = await observe(
    async () => {
      const res = await fetch(hls);
      return res.status === 200 ? res.text() : null;
    },
    async (uri) => (await fetch(new URL(uri, hls))).status === 200,
    spawnedAt, () => firstFrameAt, pub.exited,
  );
  const pubCpu = pub.resourceUsage()!.cpuTime;
  // The ingest ffmpeg ends with the publisher; its CPU is the appliance's once reaped.
  while (childrenOf(info.pid).length) await Bun.sleep(50);
  const cpu = cpuSeconds(info.pid) - cpuBefore;
  const own = cpuSeconds(info.pid, false) - ownBefore;
  target.kill("SIGTERM");
  await target.exited;
  return { obs, cpuPerS: cpu / SECONDS, ownCpuPerS: own / SECONDS, firstFromFrameS: obs.firstSegmentS - ((firstFrameAt ?? spawnedAt) - spawnedAt) / 1000, publisherCpuPerS: Number(pubCpu.user + pubCpu.system) / 1e6 / SECONDS };
}

console.log(`live bench: ${SIZE} 30 fps, keyframes every ${GOP_S} s, ${SECONDS} s broadcast (baseline ${BASELINE_SECONDS} s), ${navigator.hardwareConcurrency} cores`);
const base = await baseline();
const vh = await vidhost();
const baseAge = median(base.obs.pdtAges);
console.log(`
baseline (ffmpeg -listen → HLS, same arguments):
  first live segment ${f(base.obs.firstSegmentS)} s after the publisher started
  segment age when listed (PDT) median ${f(baseAge)} s, p95 ${f(p95(base.obs.pdtAges))} s
  CPU ${f(base.cpuPerS * 100, 1)} % of a core

vidhost:
  first live segment ${f(vh.obs.firstSegmentS)} s after the publisher started, ${f(vh.firstFromFrameS)} s after its first frame arrived   (goal <= ${GOAL_FIRST_SEGMENT_S} s; ratio to baseline ${f(vh.obs.firstSegmentS / base.obs.firstSegmentS)})
  segment age when listed: from EXT-X-PROGRAM-DATE-TIME median ${f(median(vh.obs.pdtAges))} s (p95 ${f(p95(vh.obs.pdtAges))} s); from the publisher's clock median ${f(median(vh.obs.trueAges))} s (p95 ${f(p95(vh.obs.trueAges))} s); ratio to baseline ${f(median(vh.obs.pdtAges) / baseAge)}
  EXT-X-PROGRAM-DATE-TIME of the first segment is ${f(vh.obs.pdtOffsetS ?? NaN)} s after its first frame arrived (how much PDT-based estimates understate)
  player latency (hls.js ${PLAYER_HOLD_BACK_S} s behind the live edge) median ${f(median(vh.obs.playerLatencies))} s, p95 ${f(p95(vh.obs.playerLatencies))} s   (goal <= ${GOAL_LATENCY_S} s)
  appliance CPU ${f(vh.cpuPerS * 100, 1)} % of a core: its process (RTMP, API, polling) ${f(vh.ownCpuPerS * 100, 1)} %, its ingest ffmpeg ${f((vh.cpuPerS - vh.ownCpuPerS) * 100, 1)} %; ratio to baseline ${f(vh.cpuPerS / base.cpuPerS)}; the publisher itself used ${f(vh.publisherCpuPerS * 100, 1)} %
  segments observed: ${vh.obs.trueAges.length}
goals: first segment ${vh.firstFromFrameS <= GOAL_FIRST_SEGMENT_S ? "met" : "MISSED"}, latency ${median(vh.obs.playerLatencies) <= GOAL_LATENCY_S ? "met" : "MISSED"}`);
