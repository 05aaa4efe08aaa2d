// One webhook attempt against a local receiver: exact bytes, no redirects, the timeout, and the
// address guard (a refused attempt must not reach the receiver at all).
import { afterAll, describe, expect, test } from "bun:test";
import { RefusedHostError } from "../http/outbound-address";
import { postWebhook, WebhookTimeoutError, type PostLimits } from "./post";

interface Hit { path: string; body: Uint8Array; headers: Headers }
const hits: Hit[] = [];
const server = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  async fetch(req) {
    const path = new URL(req.url).pathname;
    hits.push({ path, body: new Uint8Array(await req.arrayBuffer()), headers: req.headers });
    if (path === "/moved") return Response.redirect("/target", 302);
    if (path === "/silent") return new Promise<Response>(() => {});
    if (path === "/teapot") return new Response("no", { status: 418 });
    return new Response("x".repeat(1_000_000));
  },
});
afterAll(() => server.stop(true));

const base = `http://127.0.0.1:${server.port}`;
const open: PostLimits = { allowPrivate: true, timeoutMs: 5_000 };
const strict: PostLimits = { allowPrivate: false, timeoutMs: 5_000 };
const post = (url: string, body = "{}", limits = open, signal = new AbortController().signal) =>
  postWebhook(url, body, { "content-type": "application/json", "x-api-video-signature": "abc" }, limits, signal);
const failure = (p: Promise<unknown>) => p.then(() => { throw new Error("expected a failure"); }, (e) => e as Error);

describe("with internal addresses allowed", () => {
  test("sends the exact UTF-8 bytes and headers and resolves with the status, reading no body", async () => {
    const body = JSON.stringify({ type: "video.source.recorded", title: "café ☕ 🎬" });
    expect(await post(`${base}/ok?x=1`, body)).toBe(200);
    const hit = hits.at(-1)!;
    expect(hit.path).toBe("/ok");
    expect(Buffer.from(hit.body).equals(Buffer.from(body, "utf8"))).toBe(true);
    expect(hit.headers.get("content-length")).toBe(String(Buffer.byteLength(body)));
    expect(hit.headers.get("x-api-video-signature")).toBe("abc");
    expect(hit.headers.get("content-type")).toBe("application/json");
    expect(await post(`${base}/teapot`)).toBe(418);
  });

  test("a redirect is the answer, not followed", async () => {
    const before = hits.length;
    expect(await post(`${base}/moved`)).toBe(302);
    expect(hits.slice(before).map((h) => h.path)).toEqual(["/moved"]);
  });

  test("a receiver that never answers hits the timeout; an abort rejects with its reason", async () => {
    expect(await failure(post(`${base}/silent`, "{}", { ...open, timeoutMs: 200 }))).toBeInstanceOf(WebhookTimeoutError);
    const stop = new AbortController();
    const pending = failure(post(`${base}/silent`, "{}", open, stop.signal));
    stop.abort(new Error("shutting down"));
    expect((await pending).message).toBe("shutting down");
  });
});

describe("with internal addresses refused", () => {
  test("literals and names resolving to loopback never reach the receiver", async () => {
    const before = hits.length;
    for (const [url, message] of [
      [`${base}/ok`, /address 127\.0\.0\.1 is a loopback address/],
      [`http://[::1]:${server.port}/ok`, /address ::1 is a loopback address/],
      [`http://[::ffff:7f00:1]:${server.port}/ok`, /loopback address/],
      [`http://localhost:${server.port}/ok`, /host name localhost resolves to a loopback address/],
    ] as const) {
      const e = await failure(post(url, "{}", strict));
      expect(e, url).toBeInstanceOf(RefusedHostError);
      expect(e.message, url).toMatch(message);
    }
    expect(hits.length).toBe(before);
  });
});
