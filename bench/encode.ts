// Encode latency: a 60 s 1080p30 H.264/AAC clip (testsrc2 + a sine tone, ~8 Mbps, 2 s GOP: what a
// phone hands over) through
//   (a)  the reference: one bare ffmpeg process writing the same HLS ladder with the same preset,
//        then the MP4 stream-copied from its top rung, built with the project's own pure argument
//        builders (hlsLadderArgs for every rung + mp4FromHlsArgs), at normal priority;
//   (a') the same at nice 19, as Vidhost runs ffmpeg (informational: on a busy machine nice 19
//        alone can cost more than everything else);
//   (b)  the real appliance (child process, temp data dir, production environment) from the last
//        uploaded byte (the upload request's answer) to every rendition encoded;
//   (c)  the same from the last byte to `playable` (the first rendition).
// Times come from the `video.encoding.quality.completed` webhooks, received on a local listener
// (what a user sees), cross-checked by polling /videos/{id}/status every 50 ms. Not a test:
//   bun bench/encode.ts [--fresh] [--no-nice-reference]
// Goals: (b)/(a) <= 1.1; (c) <= 2 s. The clip is cached in the temp directory (--fresh remakes it).
import { existsSync, mkdtempSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hlsLadderArgs, mp4FromHlsArgs } from "../src/media/args";
import { probe, runFfmpeg } from "../src/media/ffmpeg";
import { isRemuxable, ladderFor } from "../src/media/ladder";
import { locateMediaTools, type MediaTools } from "../src/media/tools";
import type { ApplianceInfo } from "./appliance-target";
import { loadAverage, startChild, stopChild, type Child } from "./child";

const SECONDS = 60;
const FPS = 30;
const VIDEO_KBPS = 8000;
const GOP_S = 2;
/** src/encoding/job.ts SEGMENT_S. */
const SEGMENT_S = 4;
const POLL_MS = 50;
const TIMEOUT_MS = 20 * 60_000;
const GOAL_RATIO = 1.1;
const GOAL_PLAYABLE_S = 2;

const args = process.argv.slice(2);
const fresh = args.includes("--fresh");
const niceReference = !args.includes("--no-nice-reference");

const found = locateMediaTools({ ffmpeg: process.env.VIDHOST_FFMPEG ?? "", ffprobe: process.env.VIDHOST_FFPROBE ?? "" });
if ("missing" in found) {
  console.error(`bench/encode.ts needs ffmpeg: ${found.missing}`);
  process.exit(1);
}
const tools: MediaTools = found;

/** The phone-like source, made once and kept in the temp directory. */
async function makeSource(): Promise<string> {
  const out = join(tmpdir(), `vidhost-bench-1080p${FPS}-${SECONDS}s-${VIDEO_KBPS}k-gop${GOP_S}.mp4`);
  if (!fresh && existsSync(out)) return out;
  console.log(`making the ${SECONDS} s 1080p${FPS} source (once; cached at ${out})…`);
  const partial = `${out}.partial.mp4`;
  await runFfmpeg(tools, [
    "-f", "lavfi", "-i", `testsrc2=size=1920x1080:rate=${FPS}:duration=${SECONDS}`,
    "-f", "lavfi", "-i", `sine=frequency=440:sample_rate=48000:duration=${SECONDS}`,
    "-c:v", "libx264", "-preset", "veryfast", "-profile:v", "high", "-pix_fmt", "yuv420p",
    // A phone's rate: constant-ish 8 Mbps (nal-hrd cbr pads, as a hardware encoder's output is about flat).
    "-b:v", `${VIDEO_KBPS}k`, "-minrate", `${VIDEO_KBPS}k`, "-maxrate", `${VIDEO_KBPS}k`, "-bufsize", `${VIDEO_KBPS * 2}k`,
    "-x264-params", "nal-hrd=cbr",
    // A keyframe every 2 s, none in between: the remux path cuts 4 s segments there.
    "-g", String(GOP_S * FPS), "-keyint_min", String(GOP_S * FPS), "-sc_threshold", "0",
    "-c:a", "aac", "-b:a", "128k", "-ac", "2",
    "-movflags", "+faststart",
    partial,
  ]);
  renameSync(partial, out);
  return out;
}

/** (a): the ladder in one process, then the MP4 copied from its top rung; seconds for each step. */
async function reference(source: string, nice: boolean) {
  const p = await probe(tools, source);
  const ladder = ladderFor(p);
  const dir = mkdtempSync(join(tmpdir(), "vidhost-bench-ref-"));
  try {
    const t0 = performance.now();
    await runFfmpeg(tools, hlsLadderArgs(source, ladder, dir, { hasAudio: p.hasAudio, frameRate: p.frameRate, segmentS: SEGMENT_S }), { nice });
    const t1 = performance.now();
    await runFfmpeg(tools, mp4FromHlsArgs(join(dir, ladder[ladder.length - 1].name, "index.m3u8"), join(dir, "source.mp4")), { nice });
    const t2 = performance.now();
    return { totalS: (t2 - t0) / 1000, ladderS: (t1 - t0) / 1000, mp4S: (t2 - t1) / 1000 };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

interface Arrival {
  atS: number;
  encoding: string;
  quality: string;
}

/** (b) and (c): upload to the appliance, then wait for every rendition by webhook and by status polling. */
async function vidhost(source: string) {
  const arrivals: Arrival[] = [];
  let t0 = Infinity;
  const receiver = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const at = performance.now();
      const event = (await req.json()) as { type: string; encoding: string; quality: string };
      if (event.type === "video.encoding.quality.completed") arrivals.push({ atS: (at - t0) / 1000, encoding: event.encoding, quality: event.quality });
      return new Response(null, { status: 204 });
    },
  });
  let app: Child<ApplianceInfo> | undefined;
  try {
    app = await startChild(join(import.meta.dir, "appliance-target.ts"));
    const { productionUrl: base, productionKey } = app.info;
    const authorization = `Basic ${Buffer.from(`${productionKey}:`).toString("base64")}`;
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(base + path, {
        method,
        headers: { authorization, ...(body ? { "content-type": "application/json" } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${await res.text()}`);
      return res.json() as Promise<any>;
    };
    await call("POST", "/webhooks", { events: ["video.encoding.quality.completed"], url: `http://127.0.0.1:${receiver.port}/hook` });
    const { videoId } = await call("POST", "/videos", { title: "encode bench", mp4Support: true });

    const form = new FormData();
    form.append("file", Bun.file(source), "phone.mp4");
    const uploadStart = performance.now();
    const uploaded = await fetch(`${base}/videos/${videoId}/source`, { method: "POST", headers: { authorization }, body: form });
    t0 = performance.now(); // the answer means the last byte was received and the source stored
    if (uploaded.status !== 201) throw new Error(`upload answered ${uploaded.status}: ${await uploaded.text()}`);
    await uploaded.body?.cancel();
    const uploadS = (t0 - uploadStart) / 1000;

    // Status polling: when each quality was first seen encoded, and when `playable` turned true.
    const seen = new Map<string, number>();
    let playableS: number | null = null;
    let firstPlayableSet: string[] = [];
    let qualities: { type: string; quality: string; status: string }[] = [];
    for (;;) {
      const status = await call("GET", `/videos/${videoId}/status`);
      const now = (performance.now() - t0) / 1000;
      qualities = status.encoding.qualities;
      for (const q of qualities) if (q.status === "encoded" && !seen.has(`${q.type}/${q.quality}`)) seen.set(`${q.type}/${q.quality}`, now);
      if (status.encoding.playable && playableS === null) {
        playableS = now;
        firstPlayableSet = qualities.filter((q) => q.status === "encoded").map((q) => `${q.type} ${q.quality}`);
      }
      if (qualities.some((q) => q.status === "failed")) throw new Error(`encoding failed: ${status.encoding.failureReason}`);
      const allEncoded = qualities.length > 0 && qualities.every((q) => q.status === "encoded");
      if (allEncoded && arrivals.length >= qualities.length) break;
      if (now * 1000 > TIMEOUT_MS) throw new Error(`timed out: ${JSON.stringify(qualities)}, ${arrivals.length} webhooks`);
      await Bun.sleep(POLL_MS);
    }
    const polledAllS = Math.max(...seen.values());
    return { uploadS, arrivals: [...arrivals].sort((a, b) => a.atS - b.atS), playableS: playableS!, firstPlayableSet, polledAllS, qualities };
  } finally {
    await stopChild(app);
    receiver.stop(true);
  }
}

const source = await makeSource();
const p = await probe(tools, source);
const ladder = ladderFor(p);
const top = ladder[ladder.length - 1];
const remuxable = isRemuxable(p, top);
console.log(
  `source: ${p.durationS.toFixed(1)} s ${p.width}x${p.height} ${p.frameRate} fps ${p.videoCodec} ${p.pixelFormat} ${p.bitrateKbps} kbps` +
    `${p.hasAudio ? ` + ${p.audioCodec}` : ""}, ${(Bun.file(source).size / 1e6).toFixed(1)} MB; ladder ${ladder.map((r) => r.name).join("/")} + MP4 ${top.name}; ` +
    `isRemuxable for ${top.name} (≤ ${top.maxrateKbps * 2} kbps): ${remuxable ? "yes" : "no"}`,
);
console.log(`${loadAverage()} at start`);

const ref = await reference(source, false);
console.log(`(a)  reference, one ffmpeg for the ${ladder.length}-rung ladder (veryfast) + MP4 copy: ${ref.totalS.toFixed(2)} s (ladder ${ref.ladderS.toFixed(2)} s, MP4 ${ref.mp4S.toFixed(2)} s)`);
const refNice = niceReference ? await reference(source, true) : null;
if (refNice) console.log(`(a') the same at nice 19: ${refNice.totalS.toFixed(2)} s (ladder ${refNice.ladderS.toFixed(2)} s, MP4 ${refNice.mp4S.toFixed(2)} s)`);
console.log(`${loadAverage()} before the appliance run`);

const v = await vidhost(source);
const allS = v.arrivals[v.arrivals.length - 1].atS;
const playableHookS = v.arrivals.find((a) => a.encoding === "hls")!.atS;
console.log(`     upload of the ${(Bun.file(source).size / 1e6).toFixed(1)} MB source: ${v.uploadS.toFixed(2)} s (not counted)`);
console.log(`(b)  vidhost, last byte → all ${v.arrivals.length} renditions encoded: ${allS.toFixed(2)} s by webhook (status poll ${v.polledAllS.toFixed(2)} s)`);
console.log(`(c)  vidhost, last byte → playable: ${playableHookS.toFixed(2)} s by webhook (status poll ${v.playableS.toFixed(2)} s)`);
console.log(`     webhooks: ${v.arrivals.map((a) => `${a.encoding} ${a.quality} ${a.atS.toFixed(2)} s`).join(", ")}`);
const ratio = allS / ref.totalS;
console.log(
  `(b)/(a) = ${ratio.toFixed(2)} (goal ≤ ${GOAL_RATIO}: ${ratio <= GOAL_RATIO ? "met" : "MISSED"})` +
    (refNice ? `; (b)/(a') = ${(allS / refNice.totalS).toFixed(2)}` : ""),
);
console.log(`(c) = ${playableHookS.toFixed(2)} s (goal ≤ ${GOAL_PLAYABLE_S} s: ${playableHookS <= GOAL_PLAYABLE_S ? "met" : "MISSED"})`);
const firstHls = v.arrivals.find((a) => a.encoding === "hls")!;
const remuxed = firstHls.quality === top.name && v.firstPlayableSet.length <= 1;
console.log(
  `notes: path taken: ${remuxed
    ? `top rung ${top.name} remuxed from the source (stream copy, first to finish), the ${ladder.length - 1} rungs below encoded in one ffmpeg with keyframes aligned to it, MP4 copied from the remux`
    : `no remux: all ${ladder.length} rungs encoded in one ffmpeg (first playable: ${v.firstPlayableSet.join(", ")}), MP4 copied from the top rung`}; ` +
    `vidhost runs ffmpeg at nice 19, the reference (a) at normal priority; ${loadAverage()} at end`,
);
