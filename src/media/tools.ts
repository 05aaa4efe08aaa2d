// Finds the ffmpeg and ffprobe binaries once at start-up, so a missing tool is a clear message
// before listening rather than a failed job later.
import { accessSync, constants, statSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Config } from "../config";
import type { ChildTracker } from "./spawn";

/** Absolute paths of the two binaries every media function takes. */
export interface MediaTools {
  ffmpeg: string;
  ffprobe: string;
  /** Records every ffmpeg/ffprobe child while it runs, so a start after a crash can kill those left behind. */
  children?: ChildTracker;
}

/** How binaries are looked up; tests swap these to check the search order without touching the disk. */
export interface ToolLookup {
  /** A bare command name on PATH, or null. */
  which(name: string): string | null;
  /** ffmpeg-static's binary when the optional package and its downloaded binary are present. */
  staticFfmpeg(): string | null;
  /** True when `path` is an executable regular file. */
  executable(path: string): boolean;
}

const INSTALL_HINT = "install it (apt-get install ffmpeg)";

/** Settings first, then ffmpeg-static, then PATH; ffprobe prefers the one beside the chosen ffmpeg. */
export function locateMediaTools(
  config: Pick<Config, "ffmpeg" | "ffprobe">,
  lookup: ToolLookup = systemLookup(),
): MediaTools | { missing: string } {
  const ffmpeg = config.ffmpeg
    ? fromSetting(config.ffmpeg, "VIDHOST_FFMPEG", lookup)
    : found(lookup.staticFfmpeg() ?? lookup.which("ffmpeg"), `ffmpeg was not found: ${INSTALL_HINT} or set VIDHOST_FFMPEG`);
  if ("missing" in ffmpeg) return ffmpeg;
  // A sibling ffprobe matches the chosen ffmpeg's version (ffmpeg-static ships none, so PATH follows).
  const sibling = join(dirname(ffmpeg.path), "ffprobe" + exeSuffix());
  const ffprobe = config.ffprobe
    ? fromSetting(config.ffprobe, "VIDHOST_FFPROBE", lookup)
    : found(
        lookup.executable(sibling) ? sibling : lookup.which("ffprobe"),
        `ffprobe was not found: ${INSTALL_HINT} or set VIDHOST_FFPROBE`,
      );
  if ("missing" in ffprobe) return ffprobe;
  return { ffmpeg: ffmpeg.path, ffprobe: ffprobe.path };
}

function found(path: string | null, missing: string): { path: string } | { missing: string } {
  return path ? { path } : { missing };
}

// A setting may be a path or a bare command name; either way it must resolve, or start-up says why.
function fromSetting(value: string, env: string, lookup: ToolLookup): { path: string } | { missing: string } {
  if (!value.includes("/") && !value.includes("\\")) {
    return found(lookup.which(value), `${env} is "${value}", which is not a command on PATH`);
  }
  return found(lookup.executable(value) ? value : null, `${env} is "${value}", which is not an executable file`);
}

function exeSuffix(): string {
  return process.platform === "win32" ? ".exe" : "";
}

/** The real lookup: Bun.which, the file system, and ffmpeg-static's install location. */
export function systemLookup(): ToolLookup {
  const executable = (path: string): boolean => {
    try {
      if (!statSync(path).isFile()) return false;
      accessSync(path, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  };
  return {
    which: (name) => Bun.which(name),
    executable,
    staticFfmpeg: () => {
      try {
        // A variable name keeps the bundler from resolving the optional package at build time;
        // its binary sits beside index.js once the install script has downloaded it.
        const pkg = "ffmpeg-static";
        const bin = join(dirname(require.resolve(pkg)), "ffmpeg" + exeSuffix());
        return executable(bin) ? bin : null;
      } catch {
        return null;
      }
    },
  };
}
