import type { KeyCache } from "./auth/key-cache";
import type { Clock } from "./clock";
import type { Config, Environment } from "./config";
import type { Db } from "./db/client";
import type { PreparedStatements } from "./db/prepared";
import type { JobQueue } from "./jobs/queue";
import type { LiveRuntime } from "./live/runtime";
import type { Logger } from "./log";
import type { Storage } from "./media/storage";
import type { MediaTools } from "./media/tools";

/** What every service verb may use: built once by the composition root. */
export interface AppContext {
  db: Db;
  /** Hot queries prepared once for `db` (see db/prepared.ts). */
  prepared: PreparedStatements;
  /** Resolved API keys, access tokens and project modes; invalidate it wherever they change. */
  keyCache: KeyCache;
  config: Config;
  clock: Clock;
  log: Logger;
  queue: JobQueue;
  storage: Storage;
  /** ffmpeg and ffprobe, or why they are missing (encoding then fails with that reason). */
  media: MediaTools | { missing: string };
  /** The RTMP server and the processes of running broadcasts (started after the database is ready). */
  live: LiveRuntime;
  /** Base URLs for asset links, known once the listeners are bound. */
  urls: { production: string; sandbox: string; admin: string; rtmp: string };
}

/** An AppContext narrowed to the project and environment a request was authenticated for. */
export interface ScopeCtx extends AppContext {
  projectId: string;
  environment: Environment;
  apiKeyId: string;
}
