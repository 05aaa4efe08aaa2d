import type { Clock } from "./clock";
import type { Config, Environment } from "./config";
import type { Db } from "./db/client";
import type { JobQueue } from "./jobs/queue";
import type { Logger } from "./log";

/** What every service verb may use: built once by the composition root. */
export interface AppContext {
  db: Db;
  config: Config;
  clock: Clock;
  log: Logger;
  queue: JobQueue;
  /** Base URLs for asset links, known once the listeners are bound. */
  urls: { production: string; sandbox: string; admin: string; rtmp: string };
}

/** An AppContext narrowed to the project and environment a request was authenticated for. */
export interface ScopeCtx extends AppContext {
  projectId: string;
  environment: Environment;
  apiKeyId: string;
}
