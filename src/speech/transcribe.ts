// Where a video's transcript comes from: the speech-to-text engine when one is configured and the
// video has sound, otherwise its captions (DESIGN.md "Summaries").
import { randomUUID } from "node:crypto";
import type { AppContext } from "../context";
import { captionKey, videoCaptions } from "../captions/service";
import { parseVtt, vttToText, type Cue } from "../captions/vtt";
import { clipOf } from "../encoding/clip";
import { SANDBOX_LIMIT_S } from "../encoding/sandbox";
import { speechAudioArgs } from "../media/args-audio";
import { runFfmpeg } from "../media/ffmpeg";
import { MediaError } from "../media/media-error";
import type { ProbeResult } from "../media/probe-parse";
import type { VideoRow } from "../videos/body";
import { videoKey } from "../videos/service";
import { speechEngine, type SpeechToText } from "./engine";
import { EngineError } from "./outbound";

/** A transcript and where it came from, or why there is none (`unprocessable`). */
export type TranscriptResult =
  | { text: string; language: string | null; cues: Cue[]; from: "speech" | "captions" }
  | { unprocessable: string };

const probeOf = (row: VideoRow): ProbeResult | null => (row.probe ? (JSON.parse(row.probe) as ProbeResult) : null);

/** The primary subtag engines take ("fr-CA" → "fr"), or null. */
export const primaryLanguage = (tag: string | null): string | null => (tag ? tag.split("-")[0].toLowerCase() : null);

/** Extracts the video's sound as 16 kHz mono WAV and runs the engine on it; the audio file is always removed. */
export async function transcribeSpeech(app: AppContext, engine: SpeechToText, row: VideoRow, language: string | null, signal?: AbortSignal) {
  if ("missing" in app.media) throw new EngineError(app.media.missing);
  const audio = videoKey(row, "speech", `${randomUUID()}.wav`);
  try {
    // A clipped video's probe holds the clip's length; the sandbox cuts that to 30 s.
    const clip = clipOf(row);
    const length = clip ? (probeOf(row)?.durationS ?? undefined) : undefined;
    const limitS = row.environment === "sandbox" ? Math.min(length ?? SANDBOX_LIMIT_S, SANDBOX_LIMIT_S) : length;
    const args = speechAudioArgs(app.storage.localPath(videoKey(row, "source")), app.storage.localPath(audio, true), { startS: clip?.startS, limitS });
    try {
      await runFfmpeg(app.media, args, { signal, nice: true });
    } catch (err) {
      if (err instanceof MediaError) throw new EngineError(`The audio could not be extracted: ${err.reason}`);
      throw err;
    }
    return await engine.transcribe({ audioPath: app.storage.localPath(audio), language: primaryLanguage(language), signal });
  } finally {
    await app.storage.delete(audio);
  }
}

/** The caption a summary reads when there is no engine: the video's language, else the default, else the first. */
export async function captionTranscript(app: AppContext, row: VideoRow): Promise<{ text: string; language: string; cues: Cue[] } | null> {
  const all = videoCaptions(app, row.id);
  const primary = primaryLanguage(row.language);
  const pick = all.find((c) => c.language === row.language) ?? all.find((c) => primaryLanguage(c.language) === primary) ?? all[0];
  if (!pick) return null;
  const blob = app.storage.get(captionKey(row, pick.language));
  if (!blob) return null;
  const vtt = await blob.text();
  return { text: vttToText(vtt), language: pick.language, cues: parseVtt(vtt) };
}

/** The transcript a summary is made from; engine failures throw EngineError. */
export async function videoTranscript(app: AppContext, row: VideoRow, signal?: AbortSignal): Promise<TranscriptResult> {
  const engine = speechEngine(app.config, app.media);
  const hasAudio = probeOf(row)?.hasAudio ?? false;
  if (engine && hasAudio) {
    const heard = await transcribeSpeech(app, engine, row, row.language, signal);
    return { text: heard.text, language: heard.language ?? primaryLanguage(row.language), cues: heard.segments, from: "speech" };
  }
  const captioned = await captionTranscript(app, row);
  if (captioned) return { ...captioned, from: "captions" };
  if (!hasAudio) return { unprocessable: "The video has no audio track and no captions." };
  return { unprocessable: "No speech-to-text engine is configured (VIDHOST_STT) and the video has no captions." };
}
