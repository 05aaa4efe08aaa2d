// Shared by the video-on-demand end-to-end suites: a real webhook receiver, status polling,
// a slowed-down ffmpeg, images and raw frames made with ffmpeg. Nothing here sleeps.
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { mediaTempDir, testMediaTools } from "../fixtures/media";
import { waitFor, type TestAppliance } from "../helpers";

/** Status polling would trip the sandbox's low per-minute limits; these suites are not about them. */
export const NO_RATE_LIMITS = {
  VIDHOST_RATE_LIMITS: ["sandbox", "production"].flatMap((e) => ["uploads", "writes", "reads"].map((c) => `${e}.${c}=1000000`)).join(","),
};

export interface Received { path: string; body: string; headers: Headers }

/** A local webhook receiver answering 200 to everything; keeps every request in order. */
export function webhookReceiver() {
  const received: Received[] = [];
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      received.push({ path: new URL(req.url).pathname, body: await req.text(), headers: req.headers });
      return new Response("ok");
    },
  });
  return {
    received,
    url: (path: string) => `http://127.0.0.1:${server.port}${path}`,
    /** The parsed bodies that arrived at `path`. */
    bodies: (path: string) => received.filter((r) => r.path === path).map((r) => JSON.parse(r.body) as Record<string, string>),
    /** Parsed bodies that arrived at `path`, optionally of one event type. */
    events: (path: string, type?: string) =>
      received.filter((r) => r.path === path).map((r) => JSON.parse(r.body) as Record<string, string>).filter((e) => !type || e.type === type),
    stop: () => server.stop(true),
  };
}

export type Env = "sandbox" | "production";

export interface Status {
  ingest: { status: string | null };
  encoding: {
    playable: boolean;
    qualities: { type: "hls" | "mp4"; quality: string; status: "waiting" | "encoding" | "encoded" | "failed" }[];
    metadata: Record<string, number | string | null>;
    failureReason?: string | null;
  };
}

/** The raw JSON of GET /videos/{id}/status. */
export async function videoStatus(app: TestAppliance, key: string, videoId: string, env: Env): Promise<Status> {
  const res = await app.api(key, "GET", `/videos/${videoId}/status`, undefined, env);
  if (res.status !== 200) throw new Error(`status of ${videoId}: ${res.status} ${await res.text()}`);
  return (await res.json()) as Status;
}

/** Waits until every planned rendition is encoded (and fails fast if one fails). */
export async function waitEncoded(app: TestAppliance, key: string, videoId: string, env: Env, timeoutMs = 60_000): Promise<Status> {
  return waitFor(`${videoId} encoded`, async () => {
    const s = await videoStatus(app, key, videoId, env);
    const failed = s.encoding.qualities.find((q) => q.status === "failed");
    if (failed) throw new Error(`${failed.type} ${failed.quality} failed: ${s.encoding.failureReason}`);
    return s.encoding.qualities.length > 0 && s.encoding.qualities.every((q) => q.status === "encoded") ? s : null;
  }, timeoutMs);
}

/** Creates a video and uploads `file` as its source with a plain multipart POST; returns the id. */
export async function uploadVideo(app: TestAppliance, key: string, env: Env, file: string, title = "clip", extra: Record<string, unknown> = {}): Promise<string> {
  const created = await app.api(key, "POST", "/videos", { title, ...extra }, env);
  if (created.status !== 201) throw new Error(`create: ${created.status} ${await created.text()}`);
  const { videoId } = (await created.json()) as { videoId: string };
  await uploadSource(app, key, env, videoId, file);
  return videoId;
}

/** POST /videos/{id}/source with `file` as the multipart file part. */
export async function uploadSource(app: TestAppliance, key: string, env: Env, videoId: string, file: string): Promise<void> {
  const form = new FormData();
  form.append("file", Bun.file(file), "source.mp4");
  const base = env === "sandbox" ? app.urls.sandbox : app.urls.production;
  const res = await fetch(`${base}/videos/${videoId}/source`, { method: "POST", headers: { authorization: `Basic ${btoa(`${key}:`)}` }, body: form });
  if (res.status !== 201) throw new Error(`upload: ${res.status} ${await res.text()}`);
}

/**
 * An "ffmpeg" that reads its first input at native speed (`-re`): a 3 s clip takes 3 s of wall
 * time to encode whatever the machine, so a test can observe and interrupt an encode in progress
 * deterministically. Pass it as VIDHOST_FFMPEG.
 */
export function realTimeFfmpeg(): string {
  const path = join(mediaTempDir(), "ffmpeg-realtime");
  writeFileSync(path, `#!/bin/sh\nexec ${JSON.stringify(testMediaTools().ffmpeg)} -re "$@"\n`);
  chmodSync(path, 0o755);
  return path;
}

/** Runs ffmpeg with `args`; resolves to stdout bytes. */
export async function ffmpeg(args: string[]): Promise<Uint8Array> {
  const proc = Bun.spawn([testMediaTools().ffmpeg, "-hide_banner", "-loglevel", "error", "-nostdin", ...args], { stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).bytes(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`ffmpeg ${args.join(" ")} failed (${code}): ${err}`);
  return out;
}

/**
 * A 720p H.264/AAC clip at a modest bitrate with 2 s keyframes: what a phone or an editor exports,
 * and what the encoder serves as its top rendition by remuxing (makeClip's ultrafast clips are too
 * fat for that and get the whole ladder encoded).
 */
export async function makeRemuxableClip(seconds: number): Promise<string> {
  const out = join(mediaTempDir(), "remuxable.mp4");
  await ffmpeg([
    "-f", "lavfi", "-i", `testsrc2=size=1280x720:rate=25:duration=${seconds}`,
    "-f", "lavfi", "-i", `sine=frequency=440:sample_rate=48000:duration=${seconds}`,
    "-c:v", "libx264", "-preset", "ultrafast", "-b:v", "1500k", "-maxrate", "2000k", "-bufsize", "3000k",
    "-g", "50", "-keyint_min", "50", "-sc_threshold", "0", "-pix_fmt", "yuv420p",
    "-c:a", "aac", "-b:a", "64k", "-y", out,
  ]);
  return out;
}

/** A solid-colour still image made with ffmpeg (PNG or JPEG). */
export async function makeImage(kind: "png" | "jpg", color = "red", size = "64x36"): Promise<string> {
  const out = join(mediaTempDir(), `image.${kind}`);
  await ffmpeg(["-f", "lavfi", "-i", `color=c=${color}:s=${size}`, "-frames:v", "1", "-y", out]);
  return out;
}

/** Frame number `n` of `input` (a file or URL) as raw RGB24 at width×height. */
export function rgbFrame(input: string, n: number, width: number, height: number): Promise<Uint8Array> {
  return ffmpeg(["-i", input, "-vf", `select=eq(n\\,${n}),scale=${width}:${height}`, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", "pipe:1"]);
}

/** Mean absolute difference per channel between two RGB24 frames inside a rectangle. */
export function regionDiff(a: Uint8Array, b: Uint8Array, width: number, rect: { x: number; y: number; w: number; h: number }): number {
  let sum = 0;
  let n = 0;
  for (let y = rect.y; y < rect.y + rect.h; y++) {
    for (let x = rect.x; x < rect.x + rect.w; x++) {
      for (let c = 0; c < 3; c++) {
        const i = (y * width + x) * 3 + c;
        sum += Math.abs(a[i] - b[i]);
        n++;
      }
    }
  }
  return sum / n;
}

/** EXTINF durations and segment URIs of a media playlist. */
export function parsePlaylist(text: string): { segments: { duration: number; uri: string }[]; ended: boolean } {
  const lines = text.split("\n").map((l) => l.trim());
  const segments: { duration: number; uri: string }[] = [];
  lines.forEach((l, i) => {
    const m = /^#EXTINF:([\d.]+),/.exec(l);
    if (m) segments.push({ duration: Number(m[1]), uri: lines[i + 1] });
  });
  return { segments, ended: lines.includes("#EXT-X-ENDLIST") };
}

/** JPEG files start with FF D8 FF. */
export const isJpeg = (b: Uint8Array) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff;
