// The baseline for bench/upload.ts: a bare Bun.serve storing chunked uploads the simplest fast
// way, in its own process like the appliance. Parts arrive in order, so each `Content-Range: part i/n`
// request body is appended as it is (multipart framing and all, a few hundred bytes) to one file by
// Bun's native writer on an O_APPEND descriptor: the upload is in place when the last part lands, as
// Vidhost's in-order chunks are. No parsing, no database, no checks.
//   bun bench/upload-bare.ts           prints one JSON line ({pid, url, dir}) once ready; stops on SIGTERM/SIGINT.
//   bun bench/upload-bare.ts discard   reads each body and drops it: the client's and loopback's ceiling.
//   bun bench/upload-bare.ts js        the floor of any server that parses multipart in JS: reads each
//                                      body through its stream reader, searches every chunk for the
//                                      delimiter with one native indexOf, and appends the chunk with one
//                                      synchronous write (what an in-place pwrite costs). Keeps no framing
//                                      apart, checks nothing.
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const discard = process.argv[2] === "discard";
const js = process.argv[2] === "js";
const dir = mkdtempSync(join(tmpdir(), "vidhost-bench-bare-"));

const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  maxRequestBodySize: 256 * 1024 * 1024,
  idleTimeout: 120,
  async fetch(req) {
    const m = /^part (\d+)\/(\d+)$/.exec(req.headers.get("content-range") ?? "");
    if (req.method !== "POST" || !m || !req.body) return new Response("expected a POST with Content-Range: part i/n", { status: 400 });
    const [part, total] = [Number(m[1]), Number(m[2])];
    if (discard) {
      let size = 0;
      for await (const bytes of req.body) size += bytes.byteLength;
      return Response.json({ part, size }, { status: 201 });
    }
    if (part === 1) rmSync(join(dir, "source"), { force: true });
    const fd = openSync(join(dir, "source"), "a");
    try {
      if (js) {
        const boundary = /boundary=([^;]+)/.exec(req.headers.get("content-type") ?? "")?.[1] ?? "";
        const delimiter = Buffer.from(`\r\n--${boundary}`);
        const reader = req.body.getReader();
        let size = 0;
        let found = 0;
        for (let read = await reader.read(); !read.done; read = await reader.read()) {
          const chunk = read.value;
          if (Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).indexOf(delimiter) !== -1) found++;
          // O_APPEND puts it where an in-place writer's pwrite would.
          for (let done = 0; done < chunk.byteLength;) done += writeSync(fd, chunk, done, chunk.byteLength - done, null);
          size += chunk.byteLength;
        }
        return Response.json({ part, total, size, found }, { status: 201 });
      }
      const size = await Bun.write(Bun.file(fd), new Response(req.body));
      return Response.json({ part, total, size }, { status: 201 });
    } finally {
      closeSync(fd);
    }
  },
});

const stop = () => {
  server.stop(true);
  rmSync(dir, { recursive: true, force: true });
  process.exit(0);
};
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
console.log(JSON.stringify({ pid: process.pid, url: `http://127.0.0.1:${server.port}/videos/bench/source`, dir }));
