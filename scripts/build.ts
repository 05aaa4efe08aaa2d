// Builds the single-file executable: `bun run build` writes dist/vidhost.
// Migrations are embedded through migrations/index.ts (text imports); better-sqlite3's prebuilt
// .node addon is embedded by bun's compiler; the dashboard (web/) is built first and embedded in
// place of src/dashboard/embedded.ts's null.
import { mkdirSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import type { BunPlugin } from "bun";
import { buildDashboard } from "../src/dashboard/bundle";

const root = resolve(import.meta.dir, "..");

export interface BuildOptions {
  /** Where the executable goes (default dist/vidhost under the repo root). */
  outfile?: string;
  /** Minify identifiers, whitespace and syntax (default true). */
  minify?: boolean;
}

export interface BuildResult {
  outfile: string;
  bytes: number;
}

/** Loads src/dashboard/embedded.ts as the built dashboard, so the binary serves it without web/. */
async function embedDashboard(): Promise<BunPlugin> {
  const assets = await buildDashboard();
  return {
    name: "vidhost-dashboard",
    setup(build) {
      build.onLoad({ filter: /[\\/]src[\\/]dashboard[\\/]embedded\.ts$/ }, () => ({
        contents: `export const embeddedDashboard = ${JSON.stringify(assets)};`,
        loader: "ts",
      }));
    },
  };
}

/** Compiles src/main.ts and its dependencies into one executable; throws with bun's messages on failure. */
export async function buildBinary(options: BuildOptions = {}): Promise<BuildResult> {
  const outfile = resolve(options.outfile ?? join(root, "dist", "vidhost"));
  mkdirSync(dirname(outfile), { recursive: true });
  const dashboard = await embedDashboard();
  const result = await Bun.build({
    entrypoints: [join(root, "src", "main.ts")],
    root,
    target: "bun",
    minify: options.minify ?? true,
    sourcemap: "none",
    // A bunfig.toml in the directory where someone runs the binary must not change its behaviour.
    compile: { outfile, autoloadBunfig: false },
    plugins: [dashboard],
    throw: false,
  });
  if (!result.success) {
    const messages = result.logs.map((l) => String(l)).join("\n");
    throw new Error(`bun build --compile failed:\n${messages}`);
  }
  return { outfile, bytes: statSync(outfile).size };
}

function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

if (import.meta.main) {
  const started = performance.now();
  try {
    const { outfile, bytes } = await buildBinary();
    const secs = ((performance.now() - started) / 1000).toFixed(1);
    console.log(`built ${relative(process.cwd(), outfile) || outfile} (${mib(bytes)}, ${bytes} bytes) in ${secs} s`);
  } catch (err) {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  }
}
