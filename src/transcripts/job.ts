// Transcripts (`transcript: true`): the video's speech becomes a caption track marked generated,
// in the video's language, or in the language the engine heard (then also set on the video, origin auto).
import { and, eq, isNull, ne } from "drizzle-orm";
import { atom } from "../clock";
import type { AppContext } from "../context";
import { captions, videos } from "../db/schema";
import { captionLanguage } from "../captions/languages";
import { captionKey, saveGeneratedCaption } from "../captions/service";
import { cuesToVtt } from "../captions/vtt";
import type { JobHandler, JobOutcome } from "../jobs/queue";
import type { ProbeResult } from "../media/probe-parse";
import { countWords, speechEngine } from "../speech/engine";
import { EngineError } from "../speech/outbound";
import { transcribeSpeech } from "../speech/transcribe";
import type { VideoRow } from "../videos/body";
import { encodeSettled } from "./readiness";

export const TRANSCRIPT_JOB = "video.transcript";
/** Attempts of a transcript job: only a worker that died (killed, out of memory) uses another; it is not the video's fault. */
export const TRANSCRIPT_ATTEMPTS = 3;
/** api.video makes no transcript of fewer spoken words. */
export const MIN_TRANSCRIPT_WORDS = 50;

const LOST_REASON = "Transcribing stopped before finishing on every attempt (the server was restarting or ran out of resources)";

/** (Re)starts the video's transcript: now if its encode has settled, else when it does. */
export function requestTranscript(app: AppContext, videoId: string): void {
  app.queue.cancel(TRANSCRIPT_JOB, (p) => (p as { videoId?: string }).videoId === videoId);
  if (!encodeSettled(app.db, videoId)) return;
  app.queue.enqueue(app.db, TRANSCRIPT_JOB, { videoId }, { maxAttempts: TRANSCRIPT_ATTEMPTS });
  app.queue.notify();
}

// Removes generated tracks in other languages: a video has one transcript (a new language replaces it).
async function dropOtherTranscripts(app: AppContext, video: VideoRow, keep: string): Promise<void> {
  const stale = app.db.select().from(captions)
    .where(and(eq(captions.videoId, video.id), eq(captions.generated, true), ne(captions.language, keep))).all();
  for (const c of stale) {
    app.db.delete(captions).where(and(eq(captions.videoId, video.id), eq(captions.language, c.language))).run();
    await app.storage.delete(captionKey(video, c.language));
  }
}

/** Transcribes the video and stores the caption; the outcome's reason says why when there is none. */
async function transcribe(app: AppContext, video: VideoRow, signal: AbortSignal): Promise<JobOutcome> {
  const engine = speechEngine(app.config, app.media);
  if (!engine) return { status: "failure", error: "No speech-to-text engine is configured (VIDHOST_STT): transcripts need one." };
  const probe = video.probe ? (JSON.parse(video.probe) as ProbeResult) : null;
  if (!probe?.hasAudio) return { status: "failure", error: "unprocessable: the video has no audio track." };
  const heard = await transcribeSpeech(app, engine, video, video.language, signal);
  const words = countWords(heard.text);
  if (words < MIN_TRANSCRIPT_WORDS) return { status: "failure", error: `unprocessable: the speech holds ${words} words; a transcript needs at least ${MIN_TRANSCRIPT_WORDS}.` };
  const language = video.language ?? heard.language;
  if (!language) return { status: "failure", error: "unprocessable: the spoken language could not be detected." };
  if (!video.language) {
    app.db.update(videos).set({ language, languageOrigin: "auto", updatedAt: atom(app.clock.now()) })
      .where(and(eq(videos.id, video.id), isNull(videos.language))).run();
  }
  let tag = language;
  try {
    tag = captionLanguage(language).tag;
  } catch {
    tag = language.split("-")[0].toLowerCase();
  }
  const duration = probe.durationS || 1;
  const cues = heard.segments.length ? heard.segments : [{ startS: 0, endS: duration, text: heard.text }];
  if (!(await saveGeneratedCaption(app, video, tag, cuesToVtt(cues)))) {
    return { status: "skip", reason: `an uploaded caption in ${tag} is kept` };
  }
  await dropOtherTranscripts(app, video, tag);
  return { status: "success" };
}

/** The durable transcript job (payload: videoId). */
export function transcriptHandler(app: AppContext): JobHandler<{ videoId: string }> {
  return {
    kind: TRANSCRIPT_JOB,
    concurrency: 1,
    leaseMs: 60_000,
    // Transcripts have no state of their own to mark: the log says why none was made, as for a failed run.
    giveUp({ videoId }, error) {
      app.log.warn("transcript not made", { videoId, reason: `${LOST_REASON} (${error})` });
    },
    async run({ videoId }, run) {
      const video = app.db.select().from(videos).where(eq(videos.id, videoId)).get();
      if (!video || !video.transcript) return { status: "skip", reason: "no transcript is asked for" };
      if (!encodeSettled(app.db, videoId)) return { status: "skip", reason: "the video is not encoded yet" };
      let outcome: JobOutcome;
      try {
        outcome = await transcribe(app, video, run.signal);
      } catch (err) {
        if (run.signal.aborted || !(err instanceof EngineError)) throw err;
        outcome = { status: "failure", error: err.reason };
      }
      if (outcome.status === "failure") app.log.warn("transcript not made", { videoId, reason: outcome.error });
      return outcome;
    },
  };
}
