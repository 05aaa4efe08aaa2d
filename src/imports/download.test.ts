// The guarded download against a local server: timeouts, the cap, redirects and the address check
// on resolved names (the server must see no request at all).
import { afterAll, expect, test } from "bun:test";
import { download, ImportError, type DownloadLimits } from "./download";

let requests = 0;
const server = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  fetch(req) {
    requests++;
    const path = new URL(req.url).pathname;
    if (path === "/stall") {
      // One chunk, then silence.
      return new Response(new ReadableStream({ start: (c) => c.enqueue(new Uint8Array(10)) }));
    }
    if (path === "/drip") {
      // A byte every 20 ms, for ever: never idle, never done.
      return new Response(new ReadableStream({
        async pull(c) {
          await Bun.sleep(20);
          c.enqueue(new Uint8Array(1));
        },
      }));
    }
    if (path === "/hop") return Response.redirect("/ok", 302);
    return new Response("0123456789");
  },
});
afterAll(() => server.stop(true));

const base = `http://127.0.0.1:${server.port}`;
const limits: DownloadLimits = { maxBytes: 1024, timeoutMs: 60_000, idleMs: 60_000, maxRedirects: 2, allowPrivate: true };

async function fetchTo(url: string, overrides: Partial<DownloadLimits> = {}) {
  const chunks: Uint8Array[] = [];
  const result = await download(new URL(url), { write: async (c) => void chunks.push(c) }, { ...limits, ...overrides }, new AbortController().signal);
  return { ...result, text: new TextDecoder().decode(Buffer.concat(chunks)) };
}

const failure = (p: Promise<unknown>) => p.then(() => { throw new Error("expected a failure"); }, (e) => e as ImportError);

test("a plain download and a redirected one", async () => {
  expect(await fetchTo(`${base}/ok`)).toEqual({ bytes: 10, text: "0123456789" });
  expect((await fetchTo(`${base}/hop`)).text).toBe("0123456789");
});

test("the byte cap, the redirect limit", async () => {
  const big = await failure(fetchTo(`${base}/ok`, { maxBytes: 5 }));
  expect(big).toBeInstanceOf(ImportError);
  expect(big.retryable).toBe(false);
  const hops = await failure(fetchTo(`${base}/hop`, { maxRedirects: 0 }));
  expect(hops.reason).toMatch(/redirected more than 0 times/);
});

test("a server that goes silent hits the idle timeout (worth a retry)", async () => {
  const e = await failure(fetchTo(`${base}/stall`, { idleMs: 200 }));
  expect(e.reason).toMatch(/sent nothing for/);
  expect(e.retryable).toBe(true);
});

test("a server that never finishes hits the total timeout", async () => {
  const e = await failure(fetchTo(`${base}/drip`, { timeoutMs: 300, idleMs: 10_000 }));
  expect(e.reason).toMatch(/took longer than/);
});

test("names resolving to loopback and literal internal addresses never reach the server", async () => {
  const before = requests;
  const named = await failure(fetchTo(`http://localhost:${server.port}/ok`, { allowPrivate: false }));
  expect(named.reason).toMatch(/localhost resolves to a loopback address/);
  expect(named.retryable).toBe(false);
  const literal = await failure(fetchTo(`${base}/ok`, { allowPrivate: false }));
  expect(literal.reason).toMatch(/loopback address/);
  expect(requests).toBe(before);
});
