// hls.js, served by Vidhost itself so the player works offline and without a CDN.
// The `file` import makes `bun build --compile` embed the minified build in the executable; at
// run time the import is a path that Bun.file can open (a real file, or one inside $bunfs).
// @ts-expect-error hls.js ships no declaration for its minified build; Bun types file imports as a path.
import hlsPath from "hls.js/dist/hls.min.js" with { type: "file" };
import hlsPackage from "hls.js/package.json" with { type: "json" };
import type { BunFile } from "bun";

/** The pinned hls.js version (from its package.json, so the URL changes when the dependency does). */
export const HLS_JS_VERSION: string = hlsPackage.version;

/** URL path of the script; versioned, so browsers may cache it forever. */
export const HLS_JS_PATH = `/assets/hls-${HLS_JS_VERSION}.min.js`;

/** The embedded hls.min.js as a Bun file, ready to be a Response body. */
export function hlsJsFile(): BunFile {
  return Bun.file(hlsPath as string);
}

/** Headers for HLS_JS_PATH: the path carries the version, so the content never changes under it. */
export function hlsJsHeaders(): Record<string, string> {
  return {
    "content-type": "text/javascript; charset=utf-8",
    "cache-control": "public, max-age=31536000, immutable",
    // The player page may sit on another origin than the script (embed pages, dashboards).
    "cross-origin-resource-policy": "cross-origin",
    "x-content-type-options": "nosniff",
  };
}

/** A ready 200 answer for GET HLS_JS_PATH. */
export function hlsJsResponse(): Response {
  return new Response(hlsJsFile(), { headers: hlsJsHeaders() });
}
