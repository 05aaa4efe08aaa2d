import { Elysia, t } from "elysia";
import type { Environment } from "../config";
import type { AppContext } from "../context";
import { streamedBody } from "../http/app";
import { clientAddress } from "../http/client-address";
import { ApiError, notFound, payloadTooLarge, tooManyRequests } from "../http/errors";
import { RateLimiter } from "../http/rate-limit";
import { errorBody } from "../http/schemas";
import { parseReport, recordReport, REPORT_MAX_BYTES } from "./collect";

/** Where the player pages post their events, on each environment's listener. */
export const COLLECT_PATH = "/analytics/events";

/** Reads at most REPORT_MAX_BYTES of the body (sendBeacon posts text/plain, so no JSON parser runs first). */
async function readBounded(request: Request): Promise<string> {
  if (Number(request.headers.get("content-length") ?? "0") > REPORT_MAX_BYTES) throw payloadTooLarge("8 KiB");
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of (request.body ?? []) as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > REPORT_MAX_BYTES) throw payloadTooLarge("8 KiB");
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** POST /analytics/events: no API key (players hold none); a media of another environment is a 404. */
export function analyticsCollectRoutes(app: AppContext, environment: Environment) {
  const limiter = new RateLimiter(60_000, app.clock);
  return new Elysia({ normalize: false })
    .use(streamedBody())
    .post(COLLECT_PATH, async ({ request, server }) => {
      const address = clientAddress(request, server?.requestIP(request)?.address ?? "", app.config.trustedProxies);
      const decision = limiter.hit(address, app.config.analyticsRateLimit);
      if (!decision.allowed) throw tooManyRequests(decision.retryAfterS);
      const report = parseReport(await readBounded(request));
      if (!report) throw new ApiError(400, "invalid-payload", "The payload is invalid.", { detail: "Expected a player event report." });
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
