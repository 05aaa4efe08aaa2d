// Writing temp files when the disk is full: the failure reaches the writer (an upload then fails
// with an error answer) instead of becoming an unhandled rejection, which would end the process.
import { expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { sinkWrite } from "./storage";

test.skipIf(!existsSync("/dev/full"))("a full disk rejects the write that meets it, past the sink's buffer", async () => {
  // /dev/full answers every write with ENOSPC, as a full file system does.
  const sink = Bun.file("/dev/full").writer({ highWaterMark: 1024 * 1024 });
  const chunk = new Uint8Array(256 * 1024);
  let failure: unknown;
  try {
    for (let i = 0; i < 64; i++) await sinkWrite(sink, chunk);
  } catch (err) {
    failure = err;
  }
  expect((failure as NodeJS.ErrnoException | undefined)?.code).toBe("ENOSPC");
});
