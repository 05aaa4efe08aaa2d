// The limiter's window arithmetic with an injected clock, and the category of every main-API route.
import { describe, expect, test } from "bun:test";
import { RateLimiter, rateCategory } from "./rate-limit";

describe("RateLimiter", () => {
  const at = (iso: string) => ({ ms: Date.parse(iso) });

  test("counts per identity, refuses beyond the limit, and says when the window resets", () => {
    const now = at("2026-11-21T10:00:00.250Z");
    const limiter = new RateLimiter(60_000, { now: () => new Date(now.ms) });
    const a = [1, 2, 3].map(() => limiter.hit("a", 2));
    expect(a.map((d) => [d.allowed, d.remaining])).toEqual([[true, 1], [true, 0], [false, 0]]);
    expect(a[0]).toMatchObject({ limit: 2, retryAfterS: 60 });
    // Another identity has its own budget.
    expect(limiter.hit("b", 2)).toMatchObject({ allowed: true, remaining: 1 });
    now.ms = Date.parse("2026-11-21T10:00:59.100Z");
    expect(limiter.hit("a", 2)).toMatchObject({ allowed: false, retryAfterS: 1 });
    // The next minute starts afresh, for everyone.
    now.ms = Date.parse("2026-11-21T10:01:00.000Z");
    expect(limiter.hit("a", 2)).toMatchObject({ allowed: true, remaining: 1, retryAfterS: 60 });
    expect(limiter.hit("b", 2)).toMatchObject({ allowed: true, remaining: 1 });
  });

  test("windows are aligned to the clock: a budget opened late in a minute still resets at its end", () => {
    const now = at("2026-11-21T10:00:45.000Z");
    const limiter = new RateLimiter(60_000, { now: () => new Date(now.ms) });
    expect(limiter.hit("a", 1)).toMatchObject({ allowed: true, retryAfterS: 15 });
    expect(limiter.hit("a", 1).allowed).toBe(false);
    now.ms += 15_000;
    expect(limiter.hit("a", 1).allowed).toBe(true);
  });

  test("a one-second window (the admin API)", () => {
    const now = at("2026-11-21T10:00:00.000Z");
    const limiter = new RateLimiter(1000, { now: () => new Date(now.ms) });
    expect(limiter.hit("a", 1)).toMatchObject({ allowed: true, retryAfterS: 1 });
    expect(limiter.hit("a", 1).allowed).toBe(false);
    now.ms += 1000;
    expect(limiter.hit("a", 1).allowed).toBe(true);
  });
});

describe("rateCategory", () => {
  const table: [string, string, "uploads" | "writes" | "reads"][] = [
    ["GET", "/videos", "reads"],
    ["HEAD", "/videos/vi1", "reads"],
    ["GET", "/videos/vi1/captions/en", "reads"],
    ["GET", "/webhooks/webhook_1", "reads"],
    ["POST", "/videos/vi1/source", "uploads"],
    ["POST", "/videos/vi1/source/", "uploads"],
    ["POST", "/upload", "uploads"],
    ["POST", "/videos/vi1/thumbnail", "uploads"],
    ["POST", "/live-streams/li1/thumbnail", "uploads"],
    ["POST", "/videos/vi1/captions/en", "uploads"],
    ["POST", "/videos/vi1/chapters/fr", "uploads"],
    ["POST", "/watermarks", "uploads"],
    ["POST", "/players/pl1/logo", "uploads"],
    ["POST", "/videos", "writes"],
    ["POST", "/upload-tokens", "writes"],
    ["POST", "/webhooks", "writes"],
    ["POST", "/summaries", "writes"],
    ["POST", "/live-streams", "writes"],
    ["POST", "/auth/api-key", "writes"],
    ["POST", "/auth/refresh", "writes"],
    ["PATCH", "/videos/vi1/thumbnail", "writes"],
    ["PATCH", "/videos/vi1/captions/en", "writes"],
    ["PATCH", "/videos/vi1", "writes"],
    ["PUT", "/live-streams/li1/complete", "writes"],
    ["DELETE", "/videos/vi1/captions/en", "writes"],
    ["DELETE", "/webhooks/webhook_1", "writes"],
    ["DELETE", "/live-streams/li1/thumbnail", "writes"],
    // Not an upload route, whatever the name looks like.
    ["POST", "/videos/vi1/source/extra", "writes"],
    ["POST", "/videos/thumbnail", "writes"],
  ];
  test.each(table)("%s %s is %s", (method, path, category) => {
    expect(rateCategory(method, path)).toBe(category);
  });
});
