import type { Clock } from "../clock";

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the current window resets. */
  retryAfterS: number;
}

/** Fixed-window request counter per identity; one instance per listener, owned by the composition root. */
export class RateLimiter {
  private window = -1;
  private counts = new Map<string, number>();

  constructor(private readonly windowMs: number, private readonly clock: Clock) {}

  /** Counts one request for `identity` against `limit` and says whether it may proceed. */
  hit(identity: string, limit: number): RateDecision {
    const now = this.clock.now().getTime();
    const window = Math.floor(now / this.windowMs);
    if (window !== this.window) {
      // A new window forgets every identity, which also bounds the map's size.
      this.window = window;
      this.counts.clear();
    }
    const used = (this.counts.get(identity) ?? 0) + 1;
    this.counts.set(identity, used);
    const retryAfterS = Math.ceil(((window + 1) * this.windowMs - now) / 1000);
    return { allowed: used <= limit, limit, remaining: Math.max(0, limit - used), retryAfterS };
  }
}

/**
 * Who a main-API request counts against: the credential it presents (digested, so the limiter keeps
 * no secrets) or, without one, the client address. Bun's one-shot SHA-256 costs ~0.5 µs per request
 * where node:crypto's createHash costs several.
 */
export function requesterIdentity(request: Request): string {
  const credential = request.headers.get("authorization") ?? `anon:${request.headers.get("x-forwarded-for") ?? ""}`;
  return Bun.SHA256.hash(credential, "base64") as string;
}
