import { describe, expect, test } from "bun:test";
import { locateMediaTools, systemLookup, type ToolLookup } from "./tools";

// A fake machine: `files` are executable paths, `path` maps command names to PATH hits.
const machine = (files: string[], path: Record<string, string>, staticBin: string | null = null): ToolLookup => ({
  which: (name) => path[name] ?? null,
  executable: (p) => files.includes(p),
  staticFfmpeg: () => staticBin,
});
const none = { ffmpeg: "", ffprobe: "" };

describe("locateMediaTools", () => {
  test("settings win over everything", () => {
    const m = machine(["/opt/ff/ffmpeg", "/opt/ff/ffprobe", "/usr/bin/ffmpeg"], { ffmpeg: "/usr/bin/ffmpeg", ffprobe: "/usr/bin/ffprobe" }, "/nm/ffmpeg");
    expect(locateMediaTools({ ffmpeg: "/opt/ff/ffmpeg", ffprobe: "/opt/ff/ffprobe" }, m)).toEqual({ ffmpeg: "/opt/ff/ffmpeg", ffprobe: "/opt/ff/ffprobe" });
  });

  test("ffmpeg-static's binary when present, ffprobe then from PATH", () => {
    const m = machine(["/nm/ffmpeg"], { ffmpeg: "/usr/bin/ffmpeg", ffprobe: "/usr/bin/ffprobe" }, "/nm/ffmpeg");
    expect(locateMediaTools(none, m)).toEqual({ ffmpeg: "/nm/ffmpeg", ffprobe: "/usr/bin/ffprobe" });
  });

  test("PATH when nothing else", () => {
    const m = machine([], { ffmpeg: "/usr/bin/ffmpeg", ffprobe: "/usr/bin/ffprobe" });
    expect(locateMediaTools(none, m)).toEqual({ ffmpeg: "/usr/bin/ffmpeg", ffprobe: "/usr/bin/ffprobe" });
  });

  test("an ffprobe beside a configured ffmpeg beats PATH's; a bare name is looked up on PATH", () => {
    const m = machine(["/opt/ff/ffmpeg", "/opt/ff/ffprobe"], { ffprobe: "/usr/bin/ffprobe", ffmpeg6: "/usr/local/bin/ffmpeg6" });
    expect(locateMediaTools({ ffmpeg: "/opt/ff/ffmpeg", ffprobe: "" }, m)).toEqual({ ffmpeg: "/opt/ff/ffmpeg", ffprobe: "/opt/ff/ffprobe" });
    expect(locateMediaTools({ ffmpeg: "ffmpeg6", ffprobe: "" }, m)).toEqual({ ffmpeg: "/usr/local/bin/ffmpeg6", ffprobe: "/usr/bin/ffprobe" });
  });

  test("clear start-up messages when something is missing", () => {
    expect(locateMediaTools(none, machine([], {}))).toEqual({ missing: "ffmpeg was not found: install it (apt-get install ffmpeg) or set VIDHOST_FFMPEG" });
    expect(locateMediaTools(none, machine([], { ffmpeg: "/usr/bin/ffmpeg" }))).toEqual({
      missing: "ffprobe was not found: install it (apt-get install ffmpeg) or set VIDHOST_FFPROBE",
    });
    expect(locateMediaTools({ ffmpeg: "/nope/ffmpeg", ffprobe: "" }, machine([], {}))).toEqual({
      missing: 'VIDHOST_FFMPEG is "/nope/ffmpeg", which is not an executable file',
    });
    expect(locateMediaTools({ ffmpeg: "", ffprobe: "ffprobe7" }, machine([], { ffmpeg: "/usr/bin/ffmpeg" }))).toEqual({
      missing: 'VIDHOST_FFPROBE is "ffprobe7", which is not a command on PATH',
    });
  });

  test("the real lookup finds this machine's tools (ffmpeg-static's binary is optional)", () => {
    const tools = locateMediaTools(none, systemLookup());
    expect("missing" in tools ? tools.missing : "found").toBe("found");
    const lookup = systemLookup();
    expect(lookup.executable("/nonexistent/ffmpeg")).toBe(false);
    expect(lookup.executable("/tmp")).toBe(false); // a directory is not a binary
  });
});
