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

/** Serves an Elysia app with Bun on host:port (0 picks a free port). */
export function listen(app: { fetch: (request: Request) => Response | Promise<Response> }, host: string, port: number): Listener {
  const server: Server<undefined> = Bun.serve({
    hostname: host,
    port,
    fetch: (request, server) => {
      // The socket's address for code that needs the client (analytics); overwrites any sent value.
      request.headers.set("x-vidhost-client-address", server.requestIP(request)?.address ?? "");
      return app.fetch(request);
    },
    maxRequestBodySize: MAX_BODY,
    // Long enough for slow uploads and webhook-free long polls; Bun's maximum is 255 s.
    idleTimeout: 120,
  });
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
