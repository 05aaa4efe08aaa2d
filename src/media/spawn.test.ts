import { describe, expect, test } from "bun:test";
import { ffmpegGlobalArgs, progressSeconds } from "./ffmpeg";
import { MediaError, stderrReason } from "./media-error";
import { commandLine, runProcess } from "./spawn";

describe("command lines", () => {
  test("nice goes first, at the lowest priority", () => {
    expect(commandLine("/usr/bin/ffmpeg", ["-i", "x"], "/usr/bin/nice")).toEqual(["/usr/bin/nice", "-n", "19", "/usr/bin/ffmpeg", "-i", "x"]);
    expect(commandLine("/usr/bin/ffmpeg", ["-i", "x"], null)).toEqual(["/usr/bin/ffmpeg", "-i", "x"]);
  });

  test("global ffmpeg options, with and without progress", () => {
    const base = ["-hide_banner", "-nostdin", "-y", "-loglevel", "error", "-nostats"];
    expect(ffmpegGlobalArgs(false)).toEqual(base);
    expect(ffmpegGlobalArgs(true)).toEqual([...base, "-progress", "pipe:1"]);
  });

  test("progress lines", () => {
    expect(progressSeconds("out_time_us=1500000")).toBe(1.5);
    expect(progressSeconds("out_time_ms=2000000")).toBe(2);
    expect(progressSeconds("out_time_us=N/A")).toBeNull();
    expect(progressSeconds("frame=12")).toBeNull();
  });
});

describe("stderrReason", () => {
  test("the cause, not the generic lines after it, without the library prefix", () => {
    const stderr = [
      "[libx264 @ 0x55d0c0a3e2c0] width not divisible by 2 (101x100)",
      "Error initializing output stream 0:0 -- Error while opening encoder for output stream #0:0",
      "Conversion failed!",
      "",
    ].join("\n");
    expect(stderrReason(stderr)).toBe("width not divisible by 2 (101x100)");
  });

  test("paths shrink to file names, including ones ffmpeg derived from a pattern", () => {
    const args = ["-i", "/data/media/p/sandbox/vi1/source", "/data/media/p/sandbox/vi1/hls/%v/seg_%05d.ts"];
    expect(stderrReason("/data/media/p/sandbox/vi1/source: Invalid data found when processing input\n", args)).toBe(
      "source: Invalid data found when processing input",
    );
    expect(stderrReason("[hls @ 0x1] Failed to open file '/data/media/p/sandbox/vi1/hls/720p/seg_00003.ts'", args)).toBe(
      "Failed to open file 'seg_00003.ts'",
    );
    expect(stderrReason("Invalid frame rate 30000/1001 ratio")).toBe("Invalid frame rate 30000/1001 ratio");
  });

  test("only generic lines: the last of them; nothing: empty", () => {
    expect(stderrReason("Conversion failed!\n")).toBe("Conversion failed!");
    expect(stderrReason("")).toBe("");
  });
});

describe("runProcess", () => {
  test("a binary that cannot start is a MediaError", async () => {
    const err = await runProcess(["/nonexistent/ffmpeg", "-version"], { tool: "ffmpeg" }).catch((e) => e);
    expect(err).toBeInstanceOf(MediaError);
    expect(err.reason).toStartWith("ffmpeg could not be started: ");
  });

  test("an already-aborted signal never starts the process", async () => {
    const controller = new AbortController();
    controller.abort(new Error("shutting down"));
    await expect(runProcess(["/bin/true"], { tool: "true", signal: controller.signal })).rejects.toThrow("shutting down");
  });

  test("a non-zero exit keeps only the tail of stderr", async () => {
    const script = "i=0; while [ $i -lt 500 ]; do echo \"noise line $i of stderr\" >&2; i=$((i+1)); done; echo 'the real cause' >&2; exit 3";
    const err = await runProcess(["/bin/sh", "-c", script], { tool: "sh" }).catch((e) => e);
    expect(err.reason).toBe("sh failed: the real cause");
    expect(err.stderr.length).toBeLessThanOrEqual(4096);
    expect(err.stderr).not.toContain("noise line 0 ");
  });

  test("a throwing line handler stops the child too", async () => {
    const err = await runProcess(["/bin/sh", "-c", "echo first; exec sleep 30"], {
      tool: "sh",
      onLine: () => {
        throw new Error("handler broke");
      },
    }).catch((e) => e);
    expect(err.message).toBe("handler broke");
  });

  test("a child that writes nothing for stallMs is killed with a readable reason; one that keeps writing is not", async () => {
    const stuck = await runProcess(["/bin/sh", "-c", "echo started; exec sleep 30"], { tool: "ffmpeg", stallMs: 200 }).catch((e) => e);
    expect(stuck).toBeInstanceOf(MediaError);
    expect(stuck.reason).toBe("ffmpeg made no progress for 0.2 s and was stopped");
    // Ten lines 100 ms apart: a whole second in all, never 2 s quiet.
    const busy = "i=0; while [ $i -lt 10 ]; do echo tick; sleep 0.1; i=$((i+1)); done";
    expect(await runProcess(["/bin/sh", "-c", busy], { tool: "sh", stallMs: 2000 })).toBe("tick\n".repeat(10));
  });

  test("stdout lines stream to onLine", async () => {
    const lines: string[] = [];
    const out = await runProcess(["/bin/sh", "-c", "printf 'a=1\\nb=2\\npartial'"], { tool: "sh", onLine: (l) => lines.push(l) });
    expect(out).toBe("");
    expect(lines).toEqual(["a=1", "b=2", "partial"]);
  });
});
