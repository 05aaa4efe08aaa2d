// Builds the dashboard (web/) with Bun's bundler, in memory: one minified script, one stylesheet and
// the HTML shell naming them by content hash.
import { join, resolve } from "node:path";

export interface DashboardFile {
  body: string;
  type: string;
}

export interface DashboardAssets {
  html: string;
  /** By file name (`main-<hash>.js`), served under ASSET_PATH. */
  files: Record<string, DashboardFile>;
}

/** URL path under which the hashed files are served. */
export const ASSET_PATH = "/dashboard/assets/";

/** Where the dashboard's sources live in a checkout. */
export const WEB_DIR = resolve(import.meta.dir, "..", "..", "web");

/** Bundles web/src/main.ts (and the CSS it imports) and fills web/index.html's placeholders. */
export async function buildDashboard(webDir = WEB_DIR): Promise<DashboardAssets> {
  const result = await Bun.build({
    entrypoints: [join(webDir, "src", "main.ts")],
    target: "browser",
    minify: true,
    sourcemap: "none",
    naming: { entry: "[name]-[hash].[ext]", asset: "[name]-[hash].[ext]", chunk: "[name]-[hash].[ext]" },
    throw: false,
  });
  if (!result.success) throw new Error(`the dashboard did not build:\n${result.logs.map(String).join("\n")}`);
  const files: Record<string, DashboardFile> = {};
  const tags: string[] = [];
  for (const output of result.outputs) {
    const name = output.path.replace(/^.*[\\/]/, "");
    const type = name.endsWith(".css") ? "text/css; charset=utf-8" : "text/javascript; charset=utf-8";
    files[name] = { body: await output.text(), type };
    if (name.endsWith(".css")) tags.unshift(`<link rel="stylesheet" href="${ASSET_PATH}${name}">`);
    else if (output.kind === "entry-point") tags.push(`<script type="module" src="${ASSET_PATH}${name}"></script>`);
  }
  const template = await Bun.file(join(webDir, "index.html")).text();
  if (!template.includes("<!-- assets -->")) throw new Error("web/index.html lacks the <!-- assets --> placeholder");
  return { html: template.replace("<!-- assets -->", tags.join("\n")), files };
}
