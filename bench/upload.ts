// Chunked upload throughput and memory: a 2 GiB upload over loopback in 50 MiB parts (the official
// Node client's default chunk size, `Content-Range: part i/n`, one multipart/form-data file part per
// request) against the real appliance and against a bare Bun endpoint writing the same request
// bodies to disk (bench/upload-bare.ts), each server in its own process. Not a test:
//   bun bench/upload.ts [GiB]
// Goals: appliance/bare throughput >= 0.8; the appliance's peak RSS growth during the upload < 64 MiB.
//
// The bytes come from a seeded xorshift PRNG, one part at a time (never the whole file in memory);
// both servers get identical requests. Generating a part is not timed: throughput is bytes over the
// sum of request times (request sent → answer read), which includes each server's final assembly
// (neither has much: the bare server appends each in-order part to one file, Vidhost writes in-order
// parts straight into the partial source, so its last part only moves that file), also shown on its own. The server's CPU time
// (user + system, from /proc) is shown too: unlike times, it hardly moves with the machine's load.
// The body is not a video: the appliance runs with
// VIDHOST_FFMPEG/VIDHOST_FFPROBE set to `false`, so its encode job fails at once and costs nothing.
// A third server that drops the bodies shows the client's and loopback's own ceiling, so a ratio
// near 1 can be told apart from two servers both waiting on the client. A fourth reads the bodies in
// JS, searches each chunk once and writes it: what any multipart parser in JS costs at the least
// (reading a stream in JS copies every chunk into a fresh buffer, which Bun's native pipe avoids). Each server first takes a
// 2-part warm-up upload (not timed); RSS growth is reported over the warmed-up server and over the
// cold one. The appliance's stored source is checked byte for byte (SHA-256) after the timed part.
import { join } from "node:path";
import type { ApplianceInfo } from "./appliance-target";
import { cpuMs, fmtMiB, loadAverage, MiB, procMemory, sampleRss, startChild, stopChild, type Child } from "./child";

const TOTAL_BYTES = Math.round(Number(process.argv[2] ?? 2) * 1024 * MiB);
const PART_BYTES = 50 * MiB;
const PARTS = Math.ceil(TOTAL_BYTES / PART_BYTES);
const GOAL_RATIO = 0.8;
const GOAL_RSS_GROWTH = 64 * MiB;
const BOUNDARY = "----vidhost-bench-7MA4YWxkTrZu0gW";
const HEAD = new TextEncoder().encode(
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="bench.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
);
const TAIL = new TextEncoder().encode(`\r\n--${BOUNDARY}--\r\n`);

interface Run {
  name: string;
  requestMs: number[];
  rss: ReturnType<ReturnType<typeof sampleRss>["stop"]>;
  /** RSS before the warm-up upload. */
  coldRss: number;
  /** Peak RSS before the last request (which assembles the file). */
  chunkPeak: number;
  /** The server's CPU time (user + system) over the timed upload, ms. */
  cpuMs: number;
  sha256: string;
}

const partSize = (part: number) => Math.min(PART_BYTES, TOTAL_BYTES - (part - 1) * PART_BYTES);

/** Part `part`'s bytes from xorshift32 seeded by the part number: fast, incompressible, the same every run. */
function fillPart(part: number, words: Uint32Array<ArrayBuffer>, size = partSize(part)): Uint8Array<ArrayBuffer> {
  let x = (0x9e3779b9 ^ Math.imul(part, 0x85ebca6b)) | 0 || 1;
  for (let i = 0; i < words.length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    words[i] = x;
  }
  return new Uint8Array(words.buffer, 0, size);
}

/** One multipart request carrying `bytes` as `part part/total`; resolves with its duration in ms. */
async function sendPart(name: string, url: string, headers: Record<string, string>, bytes: Uint8Array<ArrayBuffer>, part: number, total: number): Promise<number> {
  const body = new Blob([HEAD, bytes, TAIL]);
  const started = performance.now();
  const res = await fetch(url, {
    method: "POST",
    headers: { ...headers, "content-type": `multipart/form-data; boundary=${BOUNDARY}`, "content-range": `part ${part}/${total}` },
    body,
  });
  const answer = await res.text();
  const ms = performance.now() - started;
  if (res.status !== 201) throw new Error(`${name}: part ${part}/${total} answered ${res.status}: ${answer.slice(0, 500)}`);
  return ms;
}

/**
 * Warms the server up with a 2-part upload to `warmUrl` (so the chunk and assembly paths are
 * compiled and its allocator has seen the load once), then uploads every part to `url` in order,
 * timing each request and sampling the server's RSS.
 */
async function upload(name: string, url: string, warmUrl: string, pid: number, headers: Record<string, string> = {}): Promise<Run> {
  const words = new Uint32Array(PART_BYTES / 4);
  const hasher = new Bun.CryptoHasher("sha256");
  const requestMs: number[] = [];
  const coldRss = procMemory(pid, "VmRSS") ?? 0;
  for (let part = 1; part <= 2; part++) await sendPart(name, warmUrl, headers, fillPart(1000 + part, words, PART_BYTES), part, 2);
  Bun.gc(true);
  await Bun.sleep(200);
  const rss = sampleRss(pid);
  const cpuBefore = cpuMs(pid) ?? 0;
  let chunkPeak = 0;
  for (let part = 1; part <= PARTS; part++) {
    if (part === PARTS) chunkPeak = rss.peakSoFar();
    const bytes = fillPart(part, words);
    hasher.update(bytes);
    requestMs.push(await sendPart(name, url, headers, bytes, part, PARTS));
  }
  const cpu = (cpuMs(pid) ?? 0) - cpuBefore;
  return { name, requestMs, rss: rss.stop(), coldRss, chunkPeak, cpuMs: cpu, sha256: hasher.digest("hex") };
}

async function sha256File(path: string): Promise<string> {
  const hasher = new Bun.CryptoHasher("sha256");
  for await (const chunk of Bun.file(path).stream()) hasher.update(chunk);
  return hasher.digest("hex");
}

/** Flushes dirty pages left by the previous server, so its write-back does not slow the next one. */
function settleDisk(): void {
  Bun.spawnSync(["sync"]);
}

async function runBare(mode: "bare" | "discard" | "js"): Promise<Run> {
  settleDisk();
  let bare: Child<{ pid: number; url: string }> | undefined;
  try {
    bare = await startChild(join(import.meta.dir, "upload-bare.ts"), mode === "bare" ? [] : [mode]);
    return await upload(mode, bare.info.url, bare.info.url, bare.info.pid);
  } finally {
    await stopChild(bare);
  }
}

async function runAppliance(): Promise<Run> {
  settleDisk();
  const fail = Bun.which("false");
  if (!fail) throw new Error("bench/upload.ts needs the `false` command (coreutils) to stand in for ffmpeg");
  let app: Child<ApplianceInfo> | undefined;
  try {
    app = await startChild(join(import.meta.dir, "appliance-target.ts"), [JSON.stringify({ VIDHOST_FFMPEG: fail, VIDHOST_FFPROBE: fail })]);
    const { productionUrl, productionKey, dataDir, projectId, pid } = app.info;
    const authorization = `Basic ${Buffer.from(`${productionKey}:`).toString("base64")}`;
    const create = async (title: string) => {
      const created = await fetch(`${productionUrl}/videos`, {
        method: "POST",
        headers: { authorization, "content-type": "application/json" },
        body: JSON.stringify({ title }),
      });
      if (created.status !== 201) throw new Error(`creating the video answered ${created.status}: ${await created.text()}`);
      return ((await created.json()) as { videoId: string }).videoId;
    };
    const [warmId, videoId] = [await create("upload bench warm-up"), await create("upload bench")];
    const run = await upload("vidhost", `${productionUrl}/videos/${videoId}/source`, `${productionUrl}/videos/${warmId}/source`, pid, { authorization });
    const source = join(dataDir, "media", projectId, "production", "videos", videoId, "source");
    const stored = Bun.file(source).size;
    if (stored !== TOTAL_BYTES) throw new Error(`vidhost stored ${stored} bytes, expected ${TOTAL_BYTES}`);
    const digest = await sha256File(source);
    if (digest !== run.sha256) throw new Error(`vidhost's stored source differs from the bytes sent (sha256 ${digest} != ${run.sha256})`);
    return run;
  } finally {
    await stopChild(app);
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** Figures of one run: whole-upload throughput, the chunk phase alone, and the last request's extra time (assembly). */
function figures(r: Run) {
  const totalS = r.requestMs.reduce((a, b) => a + b, 0) / 1000;
  const chunkMs = r.requestMs.slice(0, -1);
  const lastMs = r.requestMs[r.requestMs.length - 1];
  const typicalMs = median(chunkMs.length ? chunkMs : r.requestMs);
  // The last request stores its part like the others, then assembles: its extra time is the assembly.
  const assemblyS = Math.max(0, lastMs - typicalMs * (partSize(PARTS) / PART_BYTES)) / 1000;
  const chunksS = totalS - assemblyS;
  return {
    totalS,
    mibps: TOTAL_BYTES / MiB / totalS,
    chunkMibps: TOTAL_BYTES / MiB / chunksS,
    typicalMs,
    assemblyS,
    assemblyMibps: assemblyS > 0 ? TOTAL_BYTES / MiB / assemblyS : Infinity,
  };
}

console.log(
  `${fmtMiB(TOTAL_BYTES)} in ${PARTS} parts of ${PART_BYTES / MiB} MiB (multipart/form-data, Content-Range: part i/n) over loopback; ` +
    `${loadAverage()} at start`,
);
const sink = await runBare("discard");
const bare = await runBare("bare");
const floor = await runBare("js");
const vidhost = await runAppliance();

const row = (r: Run) => {
  const f = figures(r);
  return (
    `${r.name.padEnd(8)} ${f.mibps.toFixed(0).padStart(5)} MiB/s overall (${f.totalS.toFixed(2)} s)   ` +
    `chunks ${f.chunkMibps.toFixed(0).padStart(5)} MiB/s (median part ${f.typicalMs.toFixed(0)} ms)   ` +
    (f.assemblyS < 0.05 ? "no assembly   " : `assembly ${f.assemblyS.toFixed(2)} s (${f.assemblyMibps.toFixed(0)} MiB/s)   `) +
    `server CPU ${(r.cpuMs / (TOTAL_BYTES / 1024 / MiB) / 1000).toFixed(2)} s/GiB   ` +
    `server RSS cold ${fmtMiB(r.coldRss)}, warm ${fmtMiB(r.rss.baseline)} → peak ${fmtMiB(r.rss.peak)} ` +
    `(+${fmtMiB(r.rss.growth)} over warm, +${fmtMiB(r.chunkPeak - r.rss.baseline)} before the last part; +${fmtMiB(r.rss.peak - r.coldRss)} over cold)`
  );
};
console.log(row(sink) + "   (reads and drops the bodies: the client's ceiling)");
console.log(row(bare));
console.log(row(floor) + "   (reads the bodies in JS, one indexOf and one write per chunk: the floor of a JS multipart parser)");
console.log(row(vidhost));
const [b, v] = [figures(bare), figures(vidhost)];
const ratio = v.mibps / b.mibps;
console.log(
  `ratio vidhost/bare: ${ratio.toFixed(2)} overall, ${(v.chunkMibps / b.chunkMibps).toFixed(2)} chunks only, final part's extra time ${b.assemblyS.toFixed(2)} s vs ${v.assemblyS.toFixed(2)} s; ` +
    `server CPU vidhost/bare ${(vidhost.cpuMs / bare.cpuMs).toFixed(2)} (less sensitive to the machine's load than times)`,
);
console.log(
  `for reference, vidhost/js-floor: ${(v.mibps / figures(floor).mibps).toFixed(2)} throughput, ` +
    `${(vidhost.cpuMs / floor.cpuMs).toFixed(2)} server CPU (what parsing in JS costs at best; the goal stays against bare)`,
);
const coldGrowth = vidhost.rss.peak - vidhost.coldRss;
const verdict = (bytes: number) => `${fmtMiB(bytes)}: ${bytes < GOAL_RSS_GROWTH ? "met" : "MISSED"}`;
console.log(
  `goal: ratio >= ${GOAL_RATIO} (${ratio >= GOAL_RATIO ? "met" : "MISSED"}), vidhost peak RSS growth < ${fmtMiB(GOAL_RSS_GROWTH)} ` +
    `(over the warmed-up server ${verdict(vidhost.rss.growth)}; over the cold one ${verdict(coldGrowth)})`,
);
console.log(`notes: stored source checked (size and SHA-256); ${loadAverage()} at end`);
