import type { AppContext } from "../context";
import { ASSET_PATH, buildDashboard, type DashboardAssets } from "./bundle";
import { embeddedDashboard } from "./embedded";

/**
 * Security headers of the dashboard page: scripts and styles only from this listener, images and
 * frames (thumbnails, player pages) also from the two API listeners, and never framed itself.
 */
function pageHeaders(app: AppContext): Record<string, string> {
  const origins = [app.urls.production, app.urls.sandbox].map((u) => new URL(u).origin).join(" ");
  return {
    "content-type": "text/html; charset=utf-8",
    "cache-control": "no-store",
    "content-security-policy": [
      "default-src 'none'", "script-src 'self'", "style-src 'self'", `img-src 'self' data: ${origins}`,
      `frame-src ${origins}`, "connect-src 'self'", "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'",
    ].join("; "),
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
  };
}

/** The dashboard's page and files: embedded in the binary, or built from web/ once per listener on first use. */
export function dashboardAssets(app: AppContext) {
  let built: Promise<DashboardAssets> | undefined;
  const assets = () => {
    if (embeddedDashboard) return Promise.resolve(embeddedDashboard);
    built ??= buildDashboard().catch((err) => {
      built = undefined; // a fixed source builds on the next request
      throw err;
    });
    return built;
  };
  return {
    /** GET /: the single page (every view is a #fragment of it). */
    async page(): Promise<Response> {
      return new Response((await assets()).html, { headers: pageHeaders(app) });
    },
    /** GET ASSET_PATH + name: a hashed script or stylesheet, cached for good. */
    async file(name: string): Promise<Response | null> {
      const file = (await assets()).files[name];
      if (!file) return null;
      return new Response(file.body, {
        headers: { "content-type": file.type, "cache-control": "public, max-age=31536000, immutable", "x-content-type-options": "nosniff" },
      });
    },
  };
}

export { ASSET_PATH };
