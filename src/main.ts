#!/usr/bin/env bun
// Composition root and CLI: builds config, database, queue, services and listeners, and wires them.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { KeyCache } from "./auth/key-cache";
import { systemClock, type Clock } from "./clock";
import { ConfigError, helpText, loadConfig, type Config } from "./config";
import type { AppContext } from "./context";
import { openDatabase } from "./db/client";
import { DataDirLockedError, lockDataDir } from "./db/data-lock";
import { migrate } from "./db/migrate";
import { PreparedStatements } from "./db/prepared";
import { adminApi, mainApi } from "./http/apps";
import { listen, type Listener, type Served } from "./http/servers";
import { encodeHandler } from "./encoding/job";
import { mp4Handler } from "./encoding/mp4";
import { summaryHandler } from "./summaries/generate";
import { withSpeechFollowUps } from "./transcripts/after-encoding";
import { transcriptHandler } from "./transcripts/job";
import { installSandboxWatermark } from "./encoding/sandbox";
import { importHandler } from "./imports/job";
import { JobQueue } from "./jobs/queue";
import { finishHandler } from "./live/finish";
import { LiveRuntime } from "./live/runtime";
import { startSchedules } from "./jobs/schedules";
import { childRecords, reapOrphans } from "./media/child-records";
import { clearTempFiles, localStorage } from "./media/storage";
import { locateMediaTools } from "./media/tools";
import { createLogger, type Logger } from "./log";
import { bootstrap, type FirstStart } from "./projects/bootstrap";
import { webhookDeliveryHandler } from "./webhooks/delivery";

export interface Appliance {
  ctx: AppContext;
  ports: { api: number; sandbox: number; admin: number; rtmp: number };
  firstStart: FirstStart;
  /** Graceful stop: listeners drain, running jobs hand back their leases, the database closes. */
  stop(): Promise<void>;
}

export interface StartOptions {
  clock?: Clock;
  log?: Logger;
}

/** Locks the data directory, opens the database, runs migrations, bootstraps keys, then binds every listener. */
export async function startAppliance(config: Config, options: StartOptions = {}): Promise<Appliance> {
  mkdirSync(join(config.dataDir, "media"), { recursive: true });
  // Before anything touches the data directory: a second process would clear the first's temp
  // files, settle its live broadcasts and reap its ffmpeg children.
  const lock = lockDataDir(config.dataDir);
  try {
    return await startLocked(config, options, lock.release);
  } catch (err) {
    lock.release();
    throw err;
  }
}

async function startLocked(config: Config, options: StartOptions, unlock: () => void): Promise<Appliance> {
  const log = options.log ?? createLogger(config.logLevel);
  const clock = options.clock ?? systemClock;
  const { sqlite, db } = openDatabase(join(config.dataDir, "vidhost.db"));
  const applied = migrate(sqlite);
  if (applied.length) log.info("migrations applied", { applied });
  // First of all (before temp files are cleared, jobs or broadcasts resume): ffmpeg left running by
  // a process killed hard must not write into folders a new attempt uses, nor hold a stream's files.
  await reapOrphans(db, log);

  const queue = new JobQueue(db, clock, log);
  const prepared = new PreparedStatements(db);
  const keyCache = new KeyCache();
  clearTempFiles(config.dataDir);
  const storage = localStorage(config.dataDir);
  await installSandboxWatermark(storage);
  const located = locateMediaTools(config);
  const media = "missing" in located ? located : { ...located, children: childRecords(db, log) };
  if ("missing" in media) log.warn(`${media.missing}; uploads are accepted but will not encode`);
  const ctx: AppContext = {
    db, prepared, keyCache, config, clock, log, queue, storage, media,
    live: new LiveRuntime(),
    urls: { production: "", sandbox: "", admin: "", rtmp: "" },
  };
  const firstStart = bootstrap(ctx);
  queue.register(webhookDeliveryHandler(ctx));
  // Summaries and transcripts asked for before encoding ended start when it does.
  queue.register(withSpeechFollowUps(ctx, encodeHandler(ctx)));
  queue.register(withSpeechFollowUps(ctx, mp4Handler(ctx)));
  queue.register(summaryHandler(ctx));
  queue.register(transcriptHandler(ctx));
  queue.register(finishHandler(ctx));
  queue.register(importHandler(ctx));
  // Before any listener: broadcasts the last process left behind are settled first.
  const rtmpPort = await ctx.live.start(ctx);

  const listeners: Listener[] = [];
  const bind = (app: Served, port: number) => {
    const listener = listen(app, config.host, port);
    listeners.push(listener);
    return listener.port;
  };
  const ports = {
    api: bind(mainApi(ctx, "production"), config.apiPort),
    sandbox: bind(mainApi(ctx, "sandbox"), config.sandboxPort),
    admin: bind(adminApi(ctx), config.adminPort),
    rtmp: rtmpPort,
  };
  const host = config.host === "0.0.0.0" || config.host === "::" ? "localhost" : config.host;
  ctx.urls.production = config.publicUrl || `http://${host}:${ports.api}`;
  ctx.urls.sandbox = config.sandboxPublicUrl || `http://${host}:${ports.sandbox}`;
  ctx.urls.admin = config.adminPublicUrl || `http://${host}:${ports.admin}`;
  ctx.urls.rtmp = config.rtmpPublicUrl || `rtmp://${host}:${ports.rtmp}`;
  queue.start();
  const stopSchedules = startSchedules(ctx);
  log.info("listening", { production: ctx.urls.production, sandbox: ctx.urls.sandbox, admin: ctx.urls.admin, ports });

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      stopSchedules();
      // No job starts while broadcasts end: a finish job falling due during the flush would be cut
      // off by the stop; handed back, it runs at the next start (where a reconnect still continues it).
      await queue.stop();
      // Broadcasts end as if their publishers left, and their recordings are flushed, while the database is open.
      await ctx.live.stop();
      try {
        await Promise.all(listeners.map((l) => l.stop()));
        sqlite.close();
      } finally {
        unlock();
      }
    })());
  return { ctx, ports, firstStart, stop };
}

// `vidhost migrate`: under the data directory's lock, so never beneath a serving appliance.
function migrateOnly(config: Config): number {
  mkdirSync(config.dataDir, { recursive: true });
  const lock = lockDataDir(config.dataDir);
  try {
    const { sqlite } = openDatabase(join(config.dataDir, "vidhost.db"));
    const applied = migrate(sqlite);
    sqlite.close();
    console.log(applied.length ? `applied ${applied.join(", ")}` : "database is up to date");
    return 0;
  } finally {
    lock.release();
  }
}

function printWelcome(app: Appliance): void {
  const { urls } = app.ctx;
  const lines = [
    "",
    "Vidhost is running.",
    `  Dashboard and admin API: ${urls.admin}`,
    `  Production API:          ${urls.production}`,
    `  Sandbox API:             ${urls.sandbox}`,
    `  RTMP ingest:             ${urls.rtmp}/s/{streamKey}`,
    `  OpenAPI documents:       ${urls.sandbox}/swagger (UI), ${urls.sandbox}/swagger/json`,
  ];
  if (app.firstStart.adminKey) lines.push("", `  Admin key (shown once, keep it): ${app.firstStart.adminKey}`);
  if (app.firstStart.defaultProject) {
    lines.push(
      `  "Default project" ${app.firstStart.defaultProject.projectId}`,
      `  Sandbox API key (shown once):    ${app.firstStart.defaultProject.sandboxKey}`,
      "",
      `  Try it: curl -u ${app.firstStart.defaultProject.sandboxKey}: ${urls.sandbox}/webhooks`,
    );
  }
  console.log(lines.join("\n") + "\n");
}

/** `vidhost <command> [flags]`. */
export async function runCli(argv: string[], env: Record<string, string | undefined>): Promise<number> {
  const [command = "serve", ...rest] = argv[0]?.startsWith("-") ? ["serve", ...argv] : argv;
  if (command === "help" || rest.includes("--help") || rest.includes("-h") || argv.includes("--help")) {
    console.log(helpText());
    return 0;
  }
  let config: Config;
  try {
    config = loadConfig(rest, env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    console.error(`vidhost: ${err.message}`);
    return 2;
  }
  if (command !== "serve" && command !== "migrate") {
    console.error(`vidhost: unknown command "${command}" (see vidhost --help)`);
    return 2;
  }
  let app: Appliance;
  try {
    if (command === "migrate") return migrateOnly(config);
    app = await startAppliance(config);
  } catch (err) {
    // A held data directory is an operator's mistake, not a crash: one line, no stack.
    if (!(err instanceof DataDirLockedError)) throw err;
    console.error(`vidhost: ${err.message}`);
    return 1;
  }
  printWelcome(app);
  // Bun ends the process on an error nothing caught. One request's or one job's failure must not
  // stop every other upload, encode and broadcast: it is logged; state lives in SQLite, and jobs
  // and broadcasts recover from their records.
  process.on("unhandledRejection", (err) => app.ctx.log.error("unhandled rejection", { error: err instanceof Error ? (err.stack ?? err.message) : String(err) }));
  process.on("uncaughtException", (err) => app.ctx.log.error("uncaught exception", { error: err.stack ?? err.message }));
  await new Promise<void>((resolve) => {
    const shutdown = (signal: string) => {
      app.ctx.log.info(`${signal} received, stopping`);
      app.stop().then(resolve);
    };
    process.once("SIGINT", () => shutdown("SIGINT"));
    process.once("SIGTERM", () => shutdown("SIGTERM"));
  });
  return 0;
}

if (import.meta.main) {
  // A start that cannot go on (a full disk, an unreadable database) says why in one line.
  runCli(process.argv.slice(2), process.env).then((code) => process.exit(code), (err) => {
    console.error(`vidhost: could not start: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  });
}
