// How a job attempt settles: success, a stop, another attempt, or the failure shown to users with the
// error itself kept for the log.
import { expect, test } from "bun:test";
import type { AppContext } from "../context";
import { serverFault } from "../jobs/failure";
import { createLogger } from "../log";
import { isMachineFault, MediaError } from "../media/media-error";
import { settle, type SettleRules } from "./attempt";

function harness() {
  const lines: string[] = [];
  const app = { log: createLogger("warn", (l) => lines.push(l)) } as unknown as AppContext;
  const failed: string[] = [];
  const rules: SettleRules = {
    reason: (err) => (err instanceof RangeError ? err.message : serverFault("Encoding")),
    retry: (err) => !(err instanceof RangeError),
    logAs: "encoding failed",
    fail: (reason) => void failed.push(reason),
  };
  const run = (attempt: number, signal = new AbortController().signal) => ({ jobId: "job_1", attempt, maxAttempts: 3, signal });
  return { app, rules, run, lines, failed };
}

test("a finished attempt is a success", async () => {
  const h = harness();
  expect(await settle(h.app, "vi1", h.run(1), h.rules, async () => {})).toEqual({ status: "success" });
  expect(h.failed).toEqual([]);
});

test("a stop is no failure: nothing is shown", async () => {
  const h = harness();
  const stop = new AbortController();
  stop.abort();
  expect(await settle(h.app, "vi1", h.run(1, stop.signal), h.rules, async () => { throw new Error("killed"); })).toEqual({ status: "failure", error: "stopped" });
  expect(h.failed).toEqual([]);
});

test("a retryable error gets another attempt, later by the rules' delay", async () => {
  const h = harness();
  const boom = async () => { throw new Error("EIO: i/o error, write '/srv/vidhost/data/media/x'"); };
  expect(await settle(h.app, "vi1", h.run(1), h.rules, boom)).toMatchObject({ status: "retry", delayMs: 5000 });
  expect(await settle(h.app, "vi1", h.run(2), { ...h.rules, retryDelayMs: (n) => n * 100 }, boom)).toMatchObject({ status: "retry", delayMs: 200 });
});

test("the last attempt's failure shows a fixed sentence; the error's own words (a server path) reach only the log", async () => {
  const h = harness();
  const outcome = await settle(h.app, "vi1", h.run(3), h.rules, async () => { throw new Error("ENOENT: no such file, rename '/srv/vidhost/data/media/a'"); });
  expect(outcome).toEqual({ status: "failure", error: serverFault("Encoding") });
  expect(h.failed).toEqual(["Encoding failed because of a server error; the server's log has the details."]);
  expect(h.lines.join("\n")).toContain("/srv/vidhost/data/media/a");
});

test("an error the rules do not retry fails at once, with its own readable reason", async () => {
  const h = harness();
  expect(await settle(h.app, "vi1", h.run(1), h.rules, async () => { throw new RangeError("The file has no video stream."); }))
    .toEqual({ status: "failure", error: "The file has no video stream." });
  expect(h.failed).toEqual(["The file has no video stream."]);
});

test("a full disk is the machine's fault, not the file's: the encode's rules retry it, later each time", async () => {
  const h = harness();
  const full = new MediaError("No space left on device", "[segment @ 0x55d0c] Failed to open segment 'seg_00003.ts'\nav_interleaved_write_frame(): No space left on device");
  const unreadable = new MediaError("Invalid data found when processing input");
  expect([isMachineFault(full), isMachineFault(unreadable), isMachineFault(Object.assign(new Error("write failed"), { code: "ENOSPC" }))]).toEqual([true, false, true]);
  const rules: SettleRules = {
    ...h.rules,
    retry: (err) => !(err instanceof MediaError) || isMachineFault(err),
    retryDelayMs: (n, err) => (isMachineFault(err) ? 60_000 * n : undefined),
  };
  expect(await settle(h.app, "vi1", h.run(2), rules, async () => { throw full; })).toMatchObject({ status: "retry", delayMs: 120_000 });
  expect(await settle(h.app, "vi1", h.run(1), rules, async () => { throw unreadable; })).toMatchObject({ status: "failure" });
  expect(await settle(h.app, "vi1", h.run(1), rules, async () => { throw new Error("bug"); })).toMatchObject({ status: "retry", delayMs: 5000 });
});
