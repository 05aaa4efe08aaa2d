import type { Server } from "bun";

export interface Listener {
  port: number;
  /** Stops accepting, lets in-flight requests finish, then resolves. */
  stop(): Promise<void>;
}

/** Uploads stream to disk, so the body limit is the largest upload (20 GiB) plus multipart overhead. */
const MAX_BODY = 21 * 1024 ** 3;

/** How long a stop waits for in-flight requests before closing what is left. */
const STOP_GRACE_MS = 5000;

/** What `listen` serves: an Elysia app, or anything with its `fetch`. */
export interface Served {
  fetch: (request: Request) => Response | Promise<Response>;
  /** Elysia's handle on its server, which hooks read as `server` and `socketAddress` asks. */
  server?: Server<any> | null;
}

/**
 * The address of the socket a request came in on ("" when `served` is not listening). Asked only by
 * code that needs it (unauthenticated rate limits, analytics): each ask is a system call.
 */
export function socketAddress(served: Served, request: Request): string {
  return served.server?.requestIP(request)?.address ?? "";
}

/** Serves an Elysia app with Bun on host:port (0 picks a free port). */
export function listen(app: Served, host: string, port: number): Listener {
  const server: Server<undefined> = Bun.serve({
    hostname: host,
    port,
    fetch: (request) => app.fetch(request),
    maxRequestBodySize: MAX_BODY,
    // Long enough for slow uploads and webhook-free long polls; Bun's maximum is 255 s.
    idleTimeout: 120,
  });
  // What Elysia's own listen() does; without it a hook's `server` is null.
  if ("server" in app) app.server = server;
  return {
    port: server.port!,
    async stop() {
      // Idle keep-alive sockets (or a client that never finished sending) would hold a graceful stop forever.
      let timer: ReturnType<typeof setTimeout> | undefined;
      const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, STOP_GRACE_MS)));
      await Promise.race([server.stop(false), grace]);
      clearTimeout(timer);
      await server.stop(true);
    },
  };
}
