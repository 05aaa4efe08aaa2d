import { isIP } from "node:net";
import { resolve } from "node:path";
import { qualityNames, type QualityName } from "./media/ladder";

/** Every setting: its env var, its `serve` flag, default and meaning. README's table mirrors this list. */
const SETTINGS = {
  host: { env: "VIDHOST_HOST", flag: "--host", default: "127.0.0.1", help: "bind address (0.0.0.0 to expose)" },
  apiPort: { env: "VIDHOST_API_PORT", flag: "--api-port", default: "8080", help: "production API, delivery and player pages" },
  sandboxPort: { env: "VIDHOST_SANDBOX_PORT", flag: "--sandbox-port", default: "8081", help: "sandbox API, delivery and player pages" },
  adminPort: { env: "VIDHOST_ADMIN_PORT", flag: "--admin-port", default: "8090", help: "admin API and web dashboard" },
  rtmpPort: { env: "VIDHOST_RTMP_PORT", flag: "--rtmp-port", default: "1935", help: "RTMP ingest for both environments: rtmp://host:port/s/{streamKey}" },
  publicUrl: { env: "VIDHOST_PUBLIC_URL", flag: "--public-url", default: "", help: "production base URL used in asset links (default http://host:api-port)" },
  sandboxPublicUrl: { env: "VIDHOST_SANDBOX_PUBLIC_URL", flag: "--sandbox-public-url", default: "", help: "sandbox base URL used in asset links" },
  adminPublicUrl: { env: "VIDHOST_ADMIN_PUBLIC_URL", flag: "--admin-public-url", default: "", help: "dashboard base URL" },
  rtmpPublicUrl: { env: "VIDHOST_RTMP_PUBLIC_URL", flag: "--rtmp-public-url", default: "", help: "RTMP base URL given to broadcasters" },
  dataDir: { env: "VIDHOST_DATA_DIR", flag: "--data-dir", default: "./data", help: "holds vidhost.db and media/" },
  adminKey: { env: "VIDHOST_ADMIN_KEY", flag: "--admin-key", default: "", help: "admin API key (generated and printed once when unset)" },
  docsUrl: { env: "VIDHOST_DOCS_URL", flag: "--docs-url", default: "https://docs.api.video", help: "base of the `type` URL in error bodies" },
  ffmpeg: { env: "VIDHOST_FFMPEG", flag: "--ffmpeg", default: "", help: "ffmpeg binary (default: ffmpeg-static, then PATH)" },
  ffprobe: { env: "VIDHOST_FFPROBE", flag: "--ffprobe", default: "", help: "ffprobe binary (default: PATH)" },
  webhookLimit: { env: "VIDHOST_WEBHOOK_LIMIT", flag: "--webhook-limit", default: "20", help: "webhooks per project and environment" },
  webhookTimeoutMs: { env: "VIDHOST_WEBHOOK_TIMEOUT_MS", flag: "--webhook-timeout-ms", default: "10000", help: "time allowed to one webhook attempt" },
  stt: { env: "VIDHOST_STT", flag: "--stt", default: "", help: "speech-to-text engine: openai (any OpenAI-compatible /v1/audio/transcriptions server) or whisper-cpp (a local whisper-cli); unset: transcripts come from captions" },
  sttUrl: { env: "VIDHOST_STT_URL", flag: "--stt-url", default: "", help: "base URL of the speech-to-text server for --stt openai, e.g. http://127.0.0.1:8000" },
  sttKey: { env: "VIDHOST_STT_KEY", flag: "--stt-key", default: "", help: "bearer key sent to the speech-to-text server, if it needs one" },
  sttModel: { env: "VIDHOST_STT_MODEL", flag: "--stt-model", default: "whisper-1", help: "model name sent to the speech-to-text server" },
  sttTimeoutMs: { env: "VIDHOST_STT_TIMEOUT_MS", flag: "--stt-timeout-ms", default: "900000", help: "time allowed to one transcription (server call or whisper-cli run)" },
  whisperCli: { env: "VIDHOST_WHISPER_CLI", flag: "--whisper-cli", default: "whisper-cli", help: "whisper.cpp's whisper-cli binary for --stt whisper-cpp" },
  whisperModel: { env: "VIDHOST_WHISPER_MODEL", flag: "--whisper-model", default: "", help: "whisper.cpp model file (ggml-*.bin) for --stt whisper-cpp" },
  llmUrl: { env: "VIDHOST_LLM_URL", flag: "--llm-url", default: "", help: "base URL of an OpenAI-compatible chat server (e.g. Ollama, http://127.0.0.1:11434) that writes summaries; unset: the built-in extractive summariser" },
  llmModel: { env: "VIDHOST_LLM_MODEL", flag: "--llm-model", default: "", help: "model name sent to the chat server (needed with --llm-url)" },
  llmKey: { env: "VIDHOST_LLM_KEY", flag: "--llm-key", default: "", help: "bearer key sent to the chat server, if it needs one" },
  llmTimeoutMs: { env: "VIDHOST_LLM_TIMEOUT_MS", flag: "--llm-timeout-ms", default: "300000", help: "time allowed to one summary request to the chat server" },
  encodingConcurrency: { env: "VIDHOST_ENCODING_CONCURRENCY", flag: "--encoding-concurrency", default: "1", help: "encodes run at once" },
  liveReconnectS: { env: "VIDHOST_LIVE_RECONNECT_S", flag: "--live-reconnect-s", default: "60", help: "a broadcaster reconnecting within this many seconds continues the same broadcast and recording" },
  liveSegmentS: { env: "VIDHOST_LIVE_SEGMENT_S", flag: "--live-segment-s", default: "1", help: "target live HLS segment length in seconds (cut at the broadcaster's keyframes)" },
  liveLadder: { env: "VIDHOST_LIVE_LADDER", flag: "--live-ladder", default: "", help: "transcoded live renditions besides the source copy, e.g. 360p,720p (CPU per broadcast)" },
  rateLimits: { env: "VIDHOST_RATE_LIMITS", flag: "--rate-limits", default: "", help: "per-minute limits, e.g. sandbox.reads=100,production.writes=200 (uploads, writes, reads)" },
  adminRateLimit: { env: "VIDHOST_ADMIN_RATE_LIMIT", flag: "--admin-rate-limit", default: "10", help: "admin API requests per second per admin key" },
  sessionTtlHours: { env: "VIDHOST_SESSION_TTL_HOURS", flag: "--session-ttl-hours", default: "12", help: "how long a dashboard sign-in lasts" },
  logLevel: { env: "VIDHOST_LOG_LEVEL", flag: "--log-level", default: "info", help: "error, warn, info or debug" },
  importTimeoutS: { env: "VIDHOST_IMPORT_TIMEOUT_S", flag: "--import-timeout-s", default: "3600", help: "time allowed to one download of a `source` URL" },
  importIdleTimeoutS: { env: "VIDHOST_IMPORT_IDLE_TIMEOUT_S", flag: "--import-idle-timeout-s", default: "60", help: "a `source` URL download that receives nothing for this long fails (and is retried)" },
  importAllowPrivate: { env: "VIDHOST_IMPORT_ALLOW_PRIVATE", flag: "--import-allow-private", default: "false", help: "true lets `source` URLs reach loopback, private, link-local and other internal addresses (off: refused)" },
  privateTokenTtlHours: { env: "VIDHOST_PRIVATE_TOKEN_TTL_HOURS", flag: "--private-token-ttl-hours", default: "24", help: "how long an unused private-media token stays valid" },
  videoRestore: { env: "VIDHOST_VIDEO_RESTORE", flag: "--video-restore", default: "false", help: "true: DELETE /videos/{id} discards (restorable for 90 days via /discarded/videos); false: deletes for good" },
  countryHeader: { env: "VIDHOST_COUNTRY_HEADER", flag: "--country-header", default: "", help: "request header holding the viewer's ISO country code, set by a proxy or CDN (e.g. CF-IPCountry); unset: country unknown" },
  analyticsRateLimit: { env: "VIDHOST_ANALYTICS_RATE_LIMIT", flag: "--analytics-rate-limit", default: "300", help: "player event reports accepted per minute per viewer address" },
  trustedProxies: { env: "VIDHOST_TRUSTED_PROXIES", flag: "--trusted-proxies", default: "127.0.0.1,::1", help: "comma-separated addresses of reverse proxies whose X-Forwarded-For names the client (rate limits, analytics); empty: trust none" },
  webhookAllowPrivate: { env: "VIDHOST_WEBHOOK_ALLOW_PRIVATE", flag: "--webhook-allow-private", default: "false", help: "true lets webhook URLs reach loopback, private, link-local and other internal addresses (off: refused)" },
} as const;

type SettingName = keyof typeof SETTINGS;

export type Environment = "sandbox" | "production";
export type RateCategory = "uploads" | "writes" | "reads";
export type RateLimits = Record<Environment, Record<RateCategory, number>>;

export interface Config {
  host: string;
  apiPort: number;
  sandboxPort: number;
  adminPort: number;
  rtmpPort: number;
  /** Explicit public URLs; empty means "derive from the bound address". */
  publicUrl: string;
  sandboxPublicUrl: string;
  adminPublicUrl: string;
  rtmpPublicUrl: string;
  dataDir: string;
  adminKey: string;
  docsUrl: string;
  ffmpeg: string;
  ffprobe: string;
  webhookLimit: number;
  webhookTimeoutMs: number;
  /** Speech-to-text engine; "none" means transcripts come from the video's captions. */
  sttEngine: "none" | "openai" | "whisper-cpp";
  sttUrl: string;
  sttKey: string;
  sttModel: string;
  sttTimeoutMs: number;
  whisperCli: string;
  whisperModel: string;
  /** OpenAI-compatible chat server for summaries; empty means the built-in extractive summariser. */
  llmUrl: string;
  llmModel: string;
  llmKey: string;
  llmTimeoutMs: number;
  /** Fixed by api.video's contract (3 attempts, 3 s apart); only tests shorten the delay. */
  webhookRetryDelayMs: number;
  encodingConcurrency: number;
  /** Seconds a broadcast waits for its publisher to come back before it completes. */
  liveReconnectS: number;
  /** Target live HLS segment length. */
  liveSegmentS: number;
  /** Qualities transcoded live beside the source copy (empty: the source alone). */
  liveLadder: QualityName[];
  rateLimits: RateLimits;
  adminRateLimit: number;
  /** Lifetime of a dashboard session cookie. */
  sessionTtlHours: number;
  logLevel: "error" | "warn" | "info" | "debug";
  /** Limits of `source` URL imports (imports/download.ts). */
  importTimeoutMs: number;
  importIdleTimeoutMs: number;
  importAllowPrivate: boolean;
  /** The upload ceiling (20 GiB); only tests lower it. */
  importMaxBytes: number;
  /** Base delay before a failed download is tried again; only tests shorten it. */
  importRetryDelayMs: number;
  /** Lifetime of an unused single-use token of a private video or live stream. */
  privateTokenTtlHours: number;
  /** api.video's Video Restore: deletes discard for 90 days instead of deleting. */
  videoRestore: boolean;
  /** Lowercased header name carrying the viewer's country code; empty: country unknown. */
  countryHeader: string;
  analyticsRateLimit: number;
  /** Socket addresses whose last X-Forwarded-For hop is taken as the client's address. */
  trustedProxies: ReadonlySet<string>;
  /** Webhook deliveries may reach internal addresses (off: refused at creation and at connect time). */
  webhookAllowPrivate: boolean;
}

export class ConfigError extends Error {}

const DEFAULT_RATE_LIMITS: RateLimits = {
  sandbox: { uploads: 40, writes: 40, reads: 100 },
  production: { uploads: 100, writes: 200, reads: 500 },
};

/** The `vidhost --help` text, generated from the settings table. */
export function helpText(): string {
  const rows = Object.values(SETTINGS).map(
    (s) => `  ${(s.flag + " <value>").padEnd(32)} ${s.env.padEnd(28)} ${s.help}${s.default ? ` (default ${s.default})` : ""}`,
  );
  return [
    "Usage: vidhost <command> [flags]",
    "",
    "Commands:",
    "  serve     migrate the database and start every listener (default)",
    "  migrate   apply database migrations and exit",
    "  help      print this text",
    "",
    "Flags (each also read from its environment variable; a flag wins):",
    ...rows,
  ].join("\n");
}

function integer(name: SettingName, raw: string, min: number, max: number): number {
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < min || n > max) {
    throw new ConfigError(`${SETTINGS[name].env} / ${SETTINGS[name].flag} must be a whole number from ${min} to ${max}, got "${raw}"`);
  }
  return n;
}

function boolean(name: SettingName, raw: string): boolean {
  const v = raw.trim().toLowerCase();
  if (["true", "1", "yes", "on"].includes(v)) return true;
  if (["false", "0", "no", "off", ""].includes(v)) return false;
  throw new ConfigError(`${SETTINGS[name].env} / ${SETTINGS[name].flag} must be true or false, got "${raw}"`);
}

function parseRateLimits(raw: string): RateLimits {
  const limits = structuredClone(DEFAULT_RATE_LIMITS);
  for (const part of raw.split(",").map((p) => p.trim()).filter(Boolean)) {
    const m = /^(sandbox|production)\.(uploads|writes|reads)=(\d+)$/.exec(part);
    if (!m) throw new ConfigError(`VIDHOST_RATE_LIMITS: cannot read "${part}" (expected e.g. sandbox.reads=100)`);
    limits[m[1] as Environment][m[2] as RateCategory] = Number(m[3]);
  }
  return limits;
}

function parseTrustedProxies(raw: string): ReadonlySet<string> {
  const addresses = raw.split(",").map((a) => a.trim()).filter(Boolean);
  const bad = addresses.find((a) => isIP(a) === 0);
  if (bad !== undefined) throw new ConfigError(`VIDHOST_TRUSTED_PROXIES / --trusted-proxies: "${bad}" is not an IP address`);
  return new Set(addresses);
}

function httpUrl(name: SettingName, raw: string): string {
  const value = raw.trim().replace(/\/+$/, "");
  if (!/^https?:\/\/[^\s/]+/i.test(value)) throw new ConfigError(`${SETTINGS[name].env} / ${SETTINGS[name].flag} must be an http(s) URL, got "${raw}"`);
  return value;
}

/** The speech-to-text and summary engine settings, checked together (an engine needs its URL, model or file). */
function engineSettings(raw: Record<SettingName, string>) {
  const stt = raw.stt.trim().toLowerCase() || "none";
  if (stt !== "none" && stt !== "openai" && stt !== "whisper-cpp") throw new ConfigError(`VIDHOST_STT must be openai or whisper-cpp (or unset), got "${raw.stt}"`);
  if (stt === "openai" && !raw.sttUrl.trim()) throw new ConfigError("VIDHOST_STT=openai needs VIDHOST_STT_URL, the speech-to-text server's base URL");
  if (stt === "whisper-cpp" && !raw.whisperModel.trim()) throw new ConfigError("VIDHOST_STT=whisper-cpp needs VIDHOST_WHISPER_MODEL, the path of a ggml model file");
  if (raw.llmUrl.trim() && !raw.llmModel.trim()) throw new ConfigError("VIDHOST_LLM_URL needs VIDHOST_LLM_MODEL, the model the chat server should use");
  return {
    sttEngine: stt as Config["sttEngine"],
    sttUrl: raw.sttUrl.trim() ? httpUrl("sttUrl", raw.sttUrl) : "",
    sttKey: raw.sttKey,
    sttModel: raw.sttModel,
    sttTimeoutMs: integer("sttTimeoutMs", raw.sttTimeoutMs, 100, 86_400_000),
    whisperCli: raw.whisperCli,
    whisperModel: raw.whisperModel ? resolve(raw.whisperModel) : "",
    llmUrl: raw.llmUrl.trim() ? httpUrl("llmUrl", raw.llmUrl) : "",
    llmModel: raw.llmModel.trim(),
    llmKey: raw.llmKey,
    llmTimeoutMs: integer("llmTimeoutMs", raw.llmTimeoutMs, 100, 86_400_000),
  };
}

function parseLiveLadder(raw: string): QualityName[] {
  const names = raw.split(",").map((n) => n.trim()).filter(Boolean);
  for (const n of names) {
    if (!(qualityNames as readonly string[]).includes(n)) throw new ConfigError(`VIDHOST_LIVE_LADDER: "${n}" is not one of ${qualityNames.join(", ")}`);
  }
  return [...new Set(names)] as QualityName[];
}

/** Reads flags (winning) and environment variables into a validated Config. */
export function loadConfig(argv: string[], env: Record<string, string | undefined>): Config {
  const raw = {} as Record<SettingName, string>;
  for (const [name, s] of Object.entries(SETTINGS) as [SettingName, (typeof SETTINGS)[SettingName]][]) {
    raw[name] = env[s.env] ?? s.default;
  }
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split(/=(.*)/s, 2);
    const entry = (Object.entries(SETTINGS) as [SettingName, { flag: string }][]).find(([, s]) => s.flag === flag);
    if (!entry) throw new ConfigError(`unknown flag ${flag} (see vidhost --help)`);
    const value = inline ?? argv[++i];
    if (value === undefined) throw new ConfigError(`${flag} needs a value`);
    raw[entry[0]] = value;
  }
  const logLevel = raw.logLevel;
  if (!["error", "warn", "info", "debug"].includes(logLevel)) throw new ConfigError(`VIDHOST_LOG_LEVEL must be error, warn, info or debug`);
  return {
    host: raw.host,
    apiPort: integer("apiPort", raw.apiPort, 0, 65535),
    sandboxPort: integer("sandboxPort", raw.sandboxPort, 0, 65535),
    adminPort: integer("adminPort", raw.adminPort, 0, 65535),
    rtmpPort: integer("rtmpPort", raw.rtmpPort, 0, 65535),
    publicUrl: raw.publicUrl.replace(/\/+$/, ""),
    sandboxPublicUrl: raw.sandboxPublicUrl.replace(/\/+$/, ""),
    adminPublicUrl: raw.adminPublicUrl.replace(/\/+$/, ""),
    rtmpPublicUrl: raw.rtmpPublicUrl.replace(/\/+$/, ""),
    dataDir: resolve(raw.dataDir),
    adminKey: raw.adminKey,
    docsUrl: raw.docsUrl.replace(/\/+$/, ""),
    ffmpeg: raw.ffmpeg,
    ffprobe: raw.ffprobe,
    webhookLimit: integer("webhookLimit", raw.webhookLimit, 0, 100000),
    webhookTimeoutMs: integer("webhookTimeoutMs", raw.webhookTimeoutMs, 100, 600000),
    webhookRetryDelayMs: 3000,
    ...engineSettings(raw),
    encodingConcurrency: integer("encodingConcurrency", raw.encodingConcurrency, 1, 64),
    liveReconnectS: integer("liveReconnectS", raw.liveReconnectS, 0, 3600),
    liveSegmentS: integer("liveSegmentS", raw.liveSegmentS, 1, 10),
    liveLadder: parseLiveLadder(raw.liveLadder),
    rateLimits: parseRateLimits(raw.rateLimits),
    adminRateLimit: integer("adminRateLimit", raw.adminRateLimit, 1, 1000000),
    sessionTtlHours: integer("sessionTtlHours", raw.sessionTtlHours, 1, 8760),
    logLevel: logLevel as Config["logLevel"],
    importTimeoutMs: integer("importTimeoutS", raw.importTimeoutS, 1, 7 * 86_400) * 1000,
    importIdleTimeoutMs: integer("importIdleTimeoutS", raw.importIdleTimeoutS, 1, 86_400) * 1000,
    importAllowPrivate: boolean("importAllowPrivate", raw.importAllowPrivate),
    importMaxBytes: 20 * 1024 ** 3,
    importRetryDelayMs: 5000,
    privateTokenTtlHours: integer("privateTokenTtlHours", raw.privateTokenTtlHours, 1, 8760),
    videoRestore: boolean("videoRestore", raw.videoRestore),
    countryHeader: raw.countryHeader.trim().toLowerCase(),
    analyticsRateLimit: integer("analyticsRateLimit", raw.analyticsRateLimit, 1, 1000000),
    trustedProxies: parseTrustedProxies(raw.trustedProxies),
    webhookAllowPrivate: boolean("webhookAllowPrivate", raw.webhookAllowPrivate),
  };
}
