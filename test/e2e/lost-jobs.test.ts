// Jobs whose worker died (SIGKILL, out of memory) must not leave work stuck. A dead worker is
// simulated between two appliances on one data directory: the job row is left "running" under a
// lease nobody renews (already expired), as a killed process leaves it. On a job's last attempt
// the queue gives it up, and whatever waited on it ends failed with a reason; before that, the job
// is simply run again.
import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import { Database } from "bun:sqlite";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import ApiVideoClient from "@api.video/nodejs-client";
import { eq } from "drizzle-orm";
import { liveBroadcasts } from "../../src/db/schema";
import { newId, randomBase62 } from "../../src/ids";
import { FINISH_JOB } from "../../src/live/broadcasts";
import { SUMMARY_JOB } from "../../src/summaries/state";
import { ENCODE_JOB } from "../../src/videos/service";
import { makeClip } from "../fixtures/media";
import { TRANSCRIPTS, transcriptVtt } from "../fixtures/transcripts";
import { startTestAppliance, tempDir, waitFor, type TestAppliance } from "../helpers";
import { NO_RATE_LIMITS, uploadSource, uploadVideo, waitEncoded } from "./vod-support";

setDefaultTimeout(120_000);

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

interface Summary { summaryId: string; videoId: string; sourceStatus: string; failureReason: string | null }

function dataDir(): string {
  const d = tempDir();
  dirs.push(d);
  return d;
}

async function json<T>(res: Response): Promise<{ status: number; body: T }> {
  return { status: res.status, body: (await res.json()) as T };
}

const summaryOf = async (a: TestAppliance, key: string, videoId: string) =>
  (await json<{ data: Summary[] }>(await a.api(key, "GET", `/summaries?videoId=${videoId}`))).body.data[0];

/** Leaves the job of `kind` whose payload has `field` = `value` as a killed worker does, on attempt `attempts`. */
function killWorker(db: Database, kind: string, field: string, value: string, attempts: number | "last"): void {
  const changed = db.query(`UPDATE jobs SET status = 'running', lease_owner = 'job_dead', lease_until = ?,
      attempts = ${attempts === "last" ? "max_attempts" : "?"} WHERE kind = ? AND json_extract(payload, ?) = ?`)
    .run(...(attempts === "last" ? [Date.now() - 1000] : [Date.now() - 1000, attempts]), kind, `$.${field}`, value);
  expect(changed.changes).toBe(1);
}

test("a summary whose worker died is retried; on its last attempt it ends failed, and POST /summaries replaces it", async () => {
  const dir = dataDir();
  const clip = await makeClip({ width: 160, height: 120, seconds: 1 });
  const a = await startTestAppliance({ dataDir: dir, env: NO_RATE_LIMITS });
  const key = a.sandboxKey;
  const client = new ApiVideoClient({ apiKey: key, baseUri: a.urls.sandbox });
  const ids: string[] = [];
  for (const title of ["retried", "lost"]) {
    const id = await uploadVideo(a, key, "sandbox", clip, title);
    await client.captions.upload(id, "en", Buffer.from(transcriptVtt(TRANSCRIPTS.en)));
    await waitEncoded(a, key, id, "sandbox");
    ids.push(id);
  }
  const [retried, lost] = ids;
  // The summaries' jobs are queued but never run in this process: it "dies" with them running.
  await a.ctx.queue.stop();
  const summaryIds: string[] = [];
  for (const videoId of ids) {
    const created = await json<Summary>(await a.api(key, "POST", "/summaries", { videoId, origin: "auto" }));
    expect(created).toMatchObject({ status: 201, body: { sourceStatus: "waiting" } });
    summaryIds.push(created.body.summaryId);
  }
  await a.close();

  const db = new Database(join(dir, "vidhost.db"));
  // A crash is not the summary's fault: it has attempts to spare.
  expect(db.query("SELECT DISTINCT max_attempts AS n FROM jobs WHERE kind = ?").all(SUMMARY_JOB)).toEqual([{ n: 3 }]);
  killWorker(db, SUMMARY_JOB, "summaryId", summaryIds[0], 1);
  killWorker(db, SUMMARY_JOB, "summaryId", summaryIds[1], "last");
  db.close();

  const b = await startTestAppliance({ dataDir: dir, env: NO_RATE_LIMITS });
  try {
    const failed = await waitFor("the lost summary settled", async () => {
      const s = await summaryOf(b, key, lost);
      return s.sourceStatus !== "waiting" ? s : null;
    });
    expect(failed).toMatchObject({ summaryId: summaryIds[1], sourceStatus: "failed", failureReason: expect.stringMatching(/stopped before finishing on every attempt/) });
    const done = await waitFor("the retried summary settled", async () => {
      const s = await summaryOf(b, key, retried);
      return s.sourceStatus !== "waiting" ? s : null;
    });
    expect(done).toMatchObject({ summaryId: summaryIds[0], sourceStatus: "completed", failureReason: null });

    // A failed summary no longer holds the video: a new generation replaces it.
    const again = await json<Summary>(await b.api(key, "POST", "/summaries", { videoId: lost, origin: "auto" }));
    expect(again.status).toBe(201);
    expect(again.body.summaryId).not.toBe(summaryIds[1]);
    const replaced = await waitFor("the new summary settled", async () => {
      const s = await summaryOf(b, key, lost);
      return s.sourceStatus !== "waiting" ? s : null;
    });
    expect(replaced).toMatchObject({ summaryId: again.body.summaryId, sourceStatus: "completed" });
    expect((await b.api(key, "GET", `/summaries/${summaryIds[1]}/source`)).status).toBe(404);
  } finally {
    await b.close();
  }
});

test("an encode lost on its last attempt: the summary waiting for it ends failed, as after a failed encode", async () => {
  const dir = dataDir();
  const clip = await makeClip({ width: 160, height: 120, seconds: 1 });
  const a = await startTestAppliance({ dataDir: dir, env: NO_RATE_LIMITS });
  const key = a.sandboxKey;
  await a.ctx.queue.stop();
  const created = await json<{ videoId: string }>(await a.api(key, "POST", "/videos", { title: "never encoded" }));
  const videoId = created.body.videoId;
  await uploadSource(a, key, "sandbox", videoId, clip);
  const summary = await json<Summary>(await a.api(key, "POST", "/summaries", { videoId, origin: "auto" }));
  expect(summary.body.sourceStatus).toBe("waiting");
  await a.close();

  const db = new Database(join(dir, "vidhost.db"));
  killWorker(db, ENCODE_JOB, "videoId", videoId, "last");
  db.close();

  const b = await startTestAppliance({ dataDir: dir, env: NO_RATE_LIMITS });
  try {
    const settled = await waitFor("the summary settled", async () => {
      const s = await summaryOf(b, key, videoId);
      return s.sourceStatus !== "waiting" ? s : null;
    });
    expect(settled).toMatchObject({
      summaryId: summary.body.summaryId, sourceStatus: "failed",
      failureReason: expect.stringMatching(/^The video could not be encoded: Encoding stopped before finishing on every attempt/),
    });
  } finally {
    await b.close();
  }
});

test("a finish lost on its last attempt fails the broadcast and keeps its pieces; a retried finish of a completed broadcast removes leftover pieces", async () => {
  const dir = dataDir();
  const a = await startTestAppliance({ dataDir: dir, env: NO_RATE_LIMITS });
  const key = a.sandboxKey;
  const streams: string[] = [];
  for (const name of ["lost", "completed, retried", "completed, lost"]) {
    streams.push((await json<{ liveStreamId: string }>(await a.api(key, "POST", "/live-streams", { name }))).body.liveStreamId);
  }
  const projectId = a.projectId;
  await a.close();

  // What a killed process leaves: one broadcast still finalizing, two committed `completed` with
  // their pieces not yet removed; each finish job running under a dead lease.
  const db = new Database(join(dir, "vidhost.db"));
  const piece = (stream: string, broadcast: string) => join(dir, "media", projectId, "sandbox", "live", stream, "broadcasts", broadcast, "p0001.ts");
  const broadcasts = [
    { stream: streams[0], state: "finalizing", attempts: "last" as const },
    { stream: streams[1], state: "completed", attempts: 1 },
    { stream: streams[2], state: "completed", attempts: "last" as const },
  ].map((b) => ({ ...b, id: `bc${randomBase62(22)}` }));
  const now = Date.now();
  for (const b of broadcasts) {
    db.query(`INSERT INTO live_broadcasts (id, live_stream_id, project_id, environment, state, part, pieces, started_at, disconnected_at)
      VALUES (?, ?, ?, 'sandbox', ?, 1, '["p0001.ts"]', ?, ?)`).run(b.id, b.stream, projectId, b.state, new Date(now - 60_000).toISOString(), now - 30_000);
    db.query(`INSERT INTO jobs (id, kind, payload, status, attempts, max_attempts, run_at, created_at, updated_at)
      VALUES (?, ?, ?, 'queued', 0, 5, ?, ?, ?)`).run(newId("job_"), FINISH_JOB, JSON.stringify({ broadcastId: b.id, part: 1 }), now, now, now);
    killWorker(db, FINISH_JOB, "broadcastId", b.id, b.attempts);
    mkdirSync(dirname(piece(b.stream, b.id)), { recursive: true });
    writeFileSync(piece(b.stream, b.id), "recorded media");
  }
  db.close();

  const b = await startTestAppliance({ dataDir: dir, env: NO_RATE_LIMITS });
  try {
    const row = (id: string) => b.ctx.db.select({ state: liveBroadcasts.state, failure: liveBroadcasts.failure }).from(liveBroadcasts).where(eq(liveBroadcasts.id, id)).get()!;
    const [lost, retried, lostCompleted] = broadcasts;
    await waitFor("the lost broadcast settled", () => row(lost.id).state !== "finalizing");
    expect(row(lost.id)).toEqual({ state: "failed", failure: expect.stringMatching(/stopped before finishing on every attempt/) });
    // Its recording may still become a video: nothing of it is deleted.
    expect(existsSync(piece(lost.stream, lost.id))).toBe(true);

    for (const done of [retried, lostCompleted]) {
      await waitFor(`the pieces of ${done.stream} removed`, () => !existsSync(dirname(piece(done.stream, done.id))));
      expect(row(done.id)).toEqual({ state: "completed", failure: null });
    }
  } finally {
    await b.close();
  }
});
