// The summary job: transcript (speech-to-text, else captions), the 50-word rule, then the
// summariser. Every end is written on the summary: completed, unprocessable or failed with a reason.
import { and, eq } from "drizzle-orm";
import { atom } from "../clock";
import type { AppContext } from "../context";
import { summaries, videos } from "../db/schema";
import { serverFault } from "../jobs/failure";
import type { JobHandler, JobOutcome } from "../jobs/queue";
import { countWords } from "../speech/engine";
import { EngineError } from "../speech/outbound";
import { videoTranscript } from "../speech/transcribe";
import { encodeSettled } from "../transcripts/readiness";
import { summariser, type SummaryAttribute, type SummarySource } from "./engine";
import { SUMMARY_JOB, type SummaryRow } from "./state";

/** Transcripts shorter than this are not summarised (api.video §7). */
export const MIN_WORDS = 50;

/** The failure shown when every attempt's worker died (killed, out of memory): never leave a summary `waiting` forever. */
export const LOST_REASON = "Generating the summary stopped before finishing on every attempt (the server was restarting or ran out of resources).";

type End = { status: "completed"; source: SummarySource } | { status: "failed" | "unprocessable"; reason: string };

// Writes the end of a generation, unless the summary changed meanwhile (deleted, its source deleted).
function finish(app: AppContext, row: Pick<SummaryRow, "id">, end: End): void {
  const set: Partial<SummaryRow> = { sourceStatus: end.status, updatedAt: atom(app.clock.now()) };
  if (end.status === "completed") {
    set.abstract = end.source.abstract ?? null;
    set.takeaways = end.source.takeaways ? JSON.stringify(end.source.takeaways) : null;
    set.reason = null;
  } else set.reason = end.reason;
  app.db.update(summaries).set(set).where(and(eq(summaries.id, row.id), eq(summaries.sourceStatus, "waiting"))).run();
}

/** Produces the summary's source, or says why it cannot; engine failures become `failed`. */
async function generate(app: AppContext, row: SummaryRow, signal: AbortSignal): Promise<End> {
  const video = app.db.select().from(videos).where(eq(videos.id, row.videoId)).get();
  if (!video) return { status: "failed", reason: "The video was deleted." };
  if (!video.playable && video.encodingError) return { status: "failed", reason: `The video could not be encoded: ${video.encodingError}` };
  try {
    const transcript = await videoTranscript(app, video, signal);
    if ("unprocessable" in transcript) return { status: "unprocessable", reason: transcript.unprocessable };
    const words = countWords(transcript.text);
    if (words < MIN_WORDS) {
      const where = transcript.from === "speech" ? "The speech" : "The captions";
      return { status: "unprocessable", reason: `${where} hold${transcript.from === "speech" ? "s" : ""} ${words} word${words === 1 ? "" : "s"}; a summary needs at least ${MIN_WORDS}.` };
    }
    const source = await summariser(app.config).summarise({
      transcript: transcript.text,
      language: transcript.language,
      attributes: JSON.parse(row.attributes) as SummaryAttribute[],
      signal,
    });
    return { status: "completed", source };
  } catch (err) {
    if (signal.aborted) throw err;
    if (err instanceof EngineError) return { status: "failed", reason: err.reason };
    app.log.error("summary generation crashed", { summaryId: row.id, error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
    return { status: "failed", reason: serverFault("Summary generation") };
  }
}

/** The durable job that generates one summary (payload: summaryId). */
export function summaryHandler(app: AppContext): JobHandler<{ summaryId: string }> {
  return {
    kind: SUMMARY_JOB,
    concurrency: 1,
    leaseMs: 60_000,
    giveUp({ summaryId }) {
      finish(app, { id: summaryId }, { status: "failed", reason: LOST_REASON });
      app.log.warn("summary failed", { summaryId, reason: LOST_REASON });
    },
    async run({ summaryId }, run): Promise<JobOutcome> {
      const row = app.db.select().from(summaries).where(eq(summaries.id, summaryId)).get();
      if (!row || row.sourceStatus !== "waiting") return { status: "skip", reason: "the summary is no longer waiting" };
      // Queued before a re-encode began (or by hand): the end of the encode queues it again.
      if (!encodeSettled(app.db, row.videoId)) return { status: "skip", reason: "the video is not encoded yet" };
      const end = await generate(app, row, run.signal);
      finish(app, row, end);
      if (end.status === "completed") return { status: "success" };
      const fields = { summaryId, videoId: row.videoId, reason: end.reason };
      if (end.status === "failed") {
        app.log.warn("summary failed", fields);
        return { status: "failure", error: end.reason };
      }
      app.log.info("summary unprocessable", fields);
      return { status: "success" };
    },
  };
}
