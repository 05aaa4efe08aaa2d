// The speech-to-text seam: one small interface, two engines chosen by settings (DESIGN.md
// "Summaries"): any OpenAI-compatible /v1/audio/transcriptions server, or a local whisper.cpp.
import type { Cue } from "../captions/vtt";
import type { Config } from "../config";
import type { AppContext } from "../context";
import { openAiSpeech } from "./openai";
import { whisperCppSpeech } from "./whisper-cpp";

/** What an engine heard. */
export interface Transcript {
  text: string;
  /** The language it heard, as a tag from normaliseLanguage (null when it did not say). */
  language: string | null;
  /** Timed segments, when the engine gives them (generated captions use them). */
  segments: Cue[];
}

/** A speech-to-text engine; failures throw EngineError. */
export interface SpeechToText {
  readonly name: string;
  /** Transcribes a 16 kHz mono WAV file; `language` (a primary tag such as "fr") or null to let the engine detect it. */
  transcribe(input: { audioPath: string; language: string | null; signal?: AbortSignal }): Promise<Transcript>;
}

/** The configured engine, or null when none is (transcripts then come from captions); `media`'s tracker records whisper-cli runs. */
export function speechEngine(config: Config, media?: AppContext["media"]): SpeechToText | null {
  const children = media && !("missing" in media) ? media.children : undefined;
  if (config.sttEngine === "openai") {
    return openAiSpeech({ url: config.sttUrl, key: config.sttKey, model: config.sttModel, timeoutMs: config.sttTimeoutMs });
  }
  if (config.sttEngine === "whisper-cpp") {
    return whisperCppSpeech({ cli: config.whisperCli, model: config.whisperModel, timeoutMs: config.sttTimeoutMs, children });
  }
  return null;
}

// Whisper's language names (what OpenAI's verbose_json gives) for the languages Vidhost transcribes.
const WHISPER_NAMES: Record<string, string> = {
  arabic: "ar", catalan: "ca", czech: "cs", danish: "da", german: "de", greek: "el", english: "en", spanish: "es",
  persian: "fa", finnish: "fi", french: "fr", hebrew: "he", hindi: "hi", croatian: "hr", hungarian: "hu", italian: "it",
  japanese: "ja", korean: "ko", malayalam: "ml", dutch: "nl", nynorsk: "nn", norwegian: "no", polish: "pl",
  portuguese: "pt", russian: "ru", slovak: "sk", slovenian: "sl", telugu: "te", turkish: "tr", ukrainian: "uk",
  urdu: "ur", vietnamese: "vi", chinese: "zh",
};

/** An engine's language ("french", "fr", "FR") as a primary tag, or null when it is not one Vidhost knows. */
export function normaliseLanguage(raw: unknown): string | null {
  if (typeof raw !== "string") return null;
  const value = raw.trim().toLowerCase();
  if (WHISPER_NAMES[value]) return WHISPER_NAMES[value];
  const primary = value.split(/[-_]/)[0];
  return Object.values(WHISPER_NAMES).includes(primary) ? primary : null;
}

/** Words in a text (letters or digits between spaces and punctuation; CJK characters count one each). */
export function countWords(text: string): number {
  const cjk = text.match(/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/gu)?.length ?? 0;
  const words = text.replace(/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/gu, " ").match(/[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*/gu)?.length ?? 0;
  return words + cjk;
}
