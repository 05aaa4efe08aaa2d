// Speech-to-text through any OpenAI-compatible server (whisper.cpp's server, faster-whisper,
// LocalAI, OpenAI itself): multipart POST {base}/v1/audio/transcriptions with the WAV file.
import type { Cue } from "../captions/vtt";
import { normaliseLanguage, type SpeechToText, type Transcript } from "./engine";
import { bearer, EngineError, openAiEndpoint, postForJson } from "./outbound";

export interface OpenAiSpeechOptions {
  url: string;
  key: string;
  model: string;
  timeoutMs: number;
}

const WHAT = "The speech-to-text server";

/** The multipart form sent for one transcription (exported for tests). */
export function transcriptionForm(opts: { model: string; audioPath: string; language: string | null }): FormData {
  const form = new FormData();
  // Streamed from disk while sending, not loaded first.
  form.append("file", Bun.file(opts.audioPath, { type: "audio/wav" }), "audio.wav");
  form.append("model", opts.model);
  // verbose_json carries the detected language and timed segments (captions need them).
  form.append("response_format", "verbose_json");
  form.append("temperature", "0");
  if (opts.language) form.append("language", opts.language);
  return form;
}

/** Reads a transcription answer: `text` is required; `language` and `segments` are used when present. */
export function parseTranscription(body: unknown): Transcript {
  const b = body as { text?: unknown; language?: unknown; segments?: unknown };
  if (!b || typeof b !== "object" || typeof b.text !== "string") {
    throw new EngineError(`${WHAT} answered without a "text" field.`);
  }
  const segments: Cue[] = [];
  if (Array.isArray(b.segments)) {
    for (const s of b.segments as { start?: unknown; end?: unknown; text?: unknown }[]) {
      if (typeof s?.start === "number" && typeof s.end === "number" && typeof s.text === "string" && s.text.trim()) {
        segments.push({ startS: s.start, endS: s.end, text: s.text.trim() });
      }
    }
  }
  return { text: b.text.trim(), language: normaliseLanguage(b.language), segments };
}

/** The OpenAI-compatible engine. */
export function openAiSpeech(opts: OpenAiSpeechOptions): SpeechToText {
  const url = openAiEndpoint(opts.url, "audio/transcriptions");
  return {
    name: "openai",
    async transcribe({ audioPath, language, signal }) {
      const body = await postForJson(WHAT, url, { body: transcriptionForm({ model: opts.model, audioPath, language }), headers: bearer(opts.key) }, opts.timeoutMs, signal);
      return parseTranscription(body);
    },
  };
}
