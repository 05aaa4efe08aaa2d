// Shared by the live end-to-end suites: real ffmpeg publishers, a real webhook receiver, and
// waiting on the API. Nothing here sleeps for a fixed time.
import { testMediaTools } from "../fixtures/media";
import { waitFor, type TestAppliance } from "../helpers";

/** The API's rate limits are not what these suites are about (they poll). */
export const LIVE_TEST_ENV = {
  VIDHOST_RATE_LIMITS: ["sandbox", "production"].flatMap((e) => ["uploads", "writes", "reads"].map((c) => `${e}.${c}=1000000`)).join(","),
  VIDHOST_ADMIN_RATE_LIMIT: "1000",
  VIDHOST_ENCODING_CONCURRENCY: "2",
};

export interface Publisher {
  proc: ReturnType<typeof Bun.spawn>;
  exited: Promise<number>;
  stderr: Promise<string>;
}

/**
 * Publishes testsrc2 + sine as H.264/AAC FLV to `url` for `seconds` of media, in real time unless
 * `realTime` is false (then as fast as ffmpeg can, to cross time limits quickly); `codecs` replaces
 * the H.264/AAC encoder arguments.
 */
export function publish(url: string, seconds: number, opts: { realTime?: boolean; size?: string; codecs?: string[] } = {}): Publisher {
  const proc = Bun.spawn([
    testMediaTools().ffmpeg, "-hide_banner", "-loglevel", "error",
    ...(opts.realTime === false ? [] : ["-re"]),
    "-f", "lavfi", "-i", `testsrc2=size=${opts.size ?? "640x360"}:rate=30`,
    "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000",
    "-t", String(seconds),
    ...(opts.codecs ?? ["-c:v", "libx264", "-preset", "ultrafast", "-g", "30", "-pix_fmt", "yuv420p", "-c:a", "aac", "-b:a", "64k"]),
    "-f", "flv", url,
  ], { stdin: "ignore", stdout: "ignore", stderr: "pipe" });
  return { proc, exited: proc.exited, stderr: new Response(proc.stderr).text() };
}

/** The ingest URL of a live stream on an appliance. */
export const ingest = (app: TestAppliance, streamKey: string) => `rtmp://127.0.0.1:${app.ports.rtmp}/s/${streamKey}`;

// The same local webhook receiver as the VOD suites.
export { webhookReceiver, type Received } from "./vod-support";

/** Subscribes `url` to all four events in the key's project and environment. */
export async function subscribeAll(app: TestAppliance, key: string, url: string, env: "sandbox" | "production" = "sandbox"): Promise<void> {
  const events = ["live-stream.broadcast.started", "live-stream.broadcast.ended", "video.source.recorded", "video.encoding.quality.completed"];
  const res = await app.api(key, "POST", "/webhooks", { events, url }, env);
  if (res.status !== 201) throw new Error(`webhook: ${res.status} ${await res.text()}`);
}

export async function createLiveStream(app: TestAppliance, key: string, body: Record<string, unknown> = { name: "live test" }, env: "sandbox" | "production" = "sandbox") {
  const res = await app.api(key, "POST", "/live-streams", body, env);
  if (res.status !== 200) throw new Error(`create live stream: ${res.status} ${await res.text()}`);
  return (await res.json()) as { liveStreamId: string; streamKey: string; broadcasting: boolean; assets: { hls: string; player: string; thumbnail: string } };
}

export async function getLiveStream(app: TestAppliance, key: string, id: string, env: "sandbox" | "production" = "sandbox") {
  return (await (await app.api(key, "GET", `/live-streams/${id}`, undefined, env)).json()) as { broadcasting: boolean; name: string };
}

/** Waits for `broadcasting` to become `on`. */
export function waitBroadcasting(app: TestAppliance, key: string, id: string, on: boolean, env: "sandbox" | "production" = "sandbox") {
  return waitFor(`${id} broadcasting=${on}`, async () => (await getLiveStream(app, key, id, env)).broadcasting === on, 30_000, 50);
}

/** The videos recorded from a live stream (GET /videos?liveStreamId=). */
export async function recordings(app: TestAppliance, key: string, liveStreamId: string, env: "sandbox" | "production" = "sandbox") {
  const res = await app.api(key, "GET", `/videos?liveStreamId=${liveStreamId}`, undefined, env);
  return ((await res.json()) as { data: { videoId: string; title: string; source: { liveStream?: { liveStreamId: string } }; assets: { hls: string; mp4?: string } }[] }).data;
}

/** Waits until every rendition of a video is encoded; fails fast on a failed one. */
export async function waitEncoded(app: TestAppliance, key: string, videoId: string, env: "sandbox" | "production" = "sandbox") {
  return waitFor(`${videoId} encoded`, async () => {
    const s = (await (await app.api(key, "GET", `/videos/${videoId}/status`, undefined, env)).json()) as {
      encoding: { qualities: { type: string; quality: string; status: string }[]; metadata: { duration: number | null; width: number | null }; failureReason: string | null };
    };
    if (s.encoding.qualities.some((q) => q.status === "failed")) throw new Error(`encoding failed: ${s.encoding.failureReason}`);
    return s.encoding.qualities.length && s.encoding.qualities.every((q) => q.status === "encoded") ? s : null;
  }, 120_000, 100);
}

/** The segments a media playlist lists, with their EXT-X-PROGRAM-DATE-TIME. */
export function parsePlaylist(text: string) {
  const segments: { uri: string; duration: number; programDateTime: string | null }[] = [];
  let duration = 0;
  let pdt: string | null = null;
  for (const line of text.split("\n")) {
    if (line.startsWith("#EXTINF:")) duration = parseFloat(line.slice(8));
    else if (line.startsWith("#EXT-X-PROGRAM-DATE-TIME:")) pdt = line.slice(25);
    else if (line && !line.startsWith("#")) {
      segments.push({ uri: line, duration, programDateTime: pdt });
      pdt = null;
    }
  }
  return { segments, ended: text.includes("#EXT-X-ENDLIST"), sequence: Number(/#EXT-X-MEDIA-SEQUENCE:(\d+)/.exec(text)?.[1] ?? 0) };
}
