// The baseline for bench/upload.ts: a bare Bun.serve storing chunked uploads the simplest fast
// way, in its own process like the appliance. Each `Content-Range: part i/n` request body is written
// as it is (multipart framing and all, a few hundred bytes) with `Bun.write(path, new Response(body))`;
// the last part concatenates the parts into one file with a FileSink, as Vidhost assembles its
// chunks, and removes them. No parsing, no database, no checks.
//   bun bench/upload-bare.ts           prints one JSON line ({pid, url, dir}) once ready; stops on SIGTERM/SIGINT.
//   bun bench/upload-bare.ts discard   reads each body and drops it: the client's and loopback's ceiling.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const discard = process.argv[2] === "discard";
const dir = mkdtempSync(join(tmpdir(), "vidhost-bench-bare-"));
const received = new Set<number>();

async function assemble(total: number): Promise<number> {
  const out = Bun.file(join(dir, "source")).writer({ highWaterMark: 1024 * 1024 });
  let size = 0;
  for (let part = 1; part <= total; part++) {
    for await (const bytes of Bun.file(join(dir, `part-${part}`)).stream()) {
      out.write(bytes);
      size += bytes.byteLength;
    }
  }
  await out.end();
  for (let part = 1; part <= total; part++) rmSync(join(dir, `part-${part}`));
  return size;
}

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
    const size = await Bun.write(join(dir, `part-${part}`), new Response(req.body));
    received.add(part);
    const complete = received.size === total;
    const assembled = complete ? await assemble(total) : null;
    if (complete) received.clear();
    return Response.json({ part, size, assembled }, { status: 201 });
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
