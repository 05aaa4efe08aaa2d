import { Elysia, t } from "elysia";
import type { Environment } from "../config";
import type { AppContext } from "../context";
import { readBoundedText, streamedBody } from "../http/app";
import { invalidPayload, notFound, tooManyRequests } from "../http/errors";
import { rateLimitedAddress } from "../http/client-address";
import { RateLimiter } from "../http/rate-limit";
import { errorBody } from "../http/schemas";
import { parseReport, recordReport, REPORT_MAX_BYTES } from "./collect";

/** Where the player pages post their events, on each environment's listener. */
export const COLLECT_PATH = "/analytics/events";

/**
 * POST /analytics/events: no API key (players hold none); a media of another environment is a 404.
 * `addressOf` is the listener's client address (the socket's, or a trusted proxy's forwarded hop).
 */
export function analyticsCollectRoutes(app: AppContext, environment: Environment, addressOf: (request: Request) => string) {
  const limiter = new RateLimiter(60_000, app.clock);
  return new Elysia({ normalize: false })
    .use(streamedBody())
    .post(COLLECT_PATH, async ({ request }) => {
      const address = addressOf(request);
      const decision = limiter.hit(rateLimitedAddress(address), app.config.analyticsRateLimit);
      if (!decision.allowed) throw tooManyRequests(decision.retryAfterS);
      // sendBeacon posts text/plain, so no JSON parser has run: the body is read here, bounded.
      const report = parseReport(await readBoundedText(request, REPORT_MAX_BYTES, "8 KiB"));
      if (!report) throw invalidPayload("Expected a player event report.");
      const client = {
        userAgent: request.headers.get("user-agent") ?? "",
        address,
        country: app.config.countryHeader ? request.headers.get(app.config.countryHeader) : null,
      };
      if (!recordReport(app, environment, report, client)) throw notFound("mediaId");
      return new Response(null, { status: 204, headers: { "access-control-allow-origin": "*" } });
    }, {
      parse: "stream",
      response: { 204: t.Any(), 400: errorBody, 404: errorBody, 413: errorBody, 429: errorBody },
      detail: { summary: "Player event report (impression, play, start, end, heartbeat) from the player pages", tags: ["Delivery"] },
    });
}
