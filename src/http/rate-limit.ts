import type { Clock } from "../clock";
import type { RateCategory } from "../config";

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the current window resets (1 to the window's length). */
  retryAfterS: number;
}

/**
 * Fixed-window request counter per identity. Windows are aligned to the clock (each minute for the
 * main API, each second for the admin API): every identity's budget resets at the same instant, and
 * denied requests count too (they cannot push the reset back). One instance per listener, owned by
 * the composition root.
 */
export class RateLimiter {
  private window = -1;
  private windowEnd = 0;
  private counts = new Map<string, number>();

  constructor(private readonly windowMs: number, private readonly clock: Clock) {}

  /** Counts one request for `identity` against `limit` and says whether it may proceed. */
  hit(identity: string, limit: number): RateDecision {
    const now = this.clock.now().getTime();
    const window = Math.floor(now / this.windowMs);
    if (window !== this.window) {
      // A new window forgets every identity, which also bounds the map's size.
      this.window = window;
      this.windowEnd = (window + 1) * this.windowMs;
      this.counts.clear();
    }
    const used = (this.counts.get(identity) ?? 0) + 1;
    this.counts.set(identity, used);
    const retryAfterS = Math.ceil((this.windowEnd - now) / 1000);
    return { allowed: used <= limit, limit, remaining: limit > used ? limit - used : 0, retryAfterS };
  }
}

// POSTs that carry a file: video sources (with or without an upload token), thumbnails, caption and
// chapter files, watermark images and player logos. A trailing slash routes the same, so it counts the same.
const UPLOAD_PATH = /^\/(?:upload|watermarks|videos\/[^/]+\/(?:source|thumbnail|captions\/[^/]+|chapters\/[^/]+)|live-streams\/[^/]+\/thumbnail|players\/[^/]+\/logo)\/?$/;

/** api.video's three budgets: file uploads, other writes (any non-GET), and reads (GET, HEAD). */
export function rateCategory(method: string, path: string): RateCategory {
  if (method === "GET" || method === "HEAD") return "reads";
  return method === "POST" && UPLOAD_PATH.test(path) ? "uploads" : "writes";
}
