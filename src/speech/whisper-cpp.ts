// Speech-to-text with a local whisper.cpp: `whisper-cli` spawned with an argument array (never a
// shell), writing its JSON next to the audio file, which is read back and removed.
import { rm } from "node:fs/promises";
import type { Cue } from "../captions/vtt";
import { MediaError } from "../media/media-error";
import { runProcess, type ChildTracker } from "../media/spawn";
import { normaliseLanguage, type SpeechToText, type Transcript } from "./engine";
import { EngineError, formatSeconds } from "./outbound";

export interface WhisperCppOptions {
  cli: string;
  model: string;
  timeoutMs: number;
  /** Records the whisper-cli child while it runs (the appliance's media_processes), so a start after a crash kills it. */
  children?: ChildTracker;
}

/** whisper-cli arguments: model, input, language (or auto-detection), JSON output at `{outputBase}.json`. */
export function whisperCliArgs(opts: { model: string; audioPath: string; outputBase: string; language: string | null }): string[] {
  return [
    "-m", opts.model, // the ggml model file
    "-f", opts.audioPath, // 16 kHz mono WAV, as whisper.cpp wants it
    "-l", opts.language ?? "auto", // the video's language, or detect it from the first 30 s
    "-oj", // write the result as JSON (segments with millisecond offsets, detected language)
    "-of", opts.outputBase, // ... at this path plus ".json"
    "-np", // print nothing but results
  ];
}

/** Reads whisper-cli's `-oj` output: `result.language` and `transcription[]` with `offsets` in ms. */
export function parseWhisperJson(raw: unknown): Transcript {
  const doc = raw as { result?: { language?: unknown }; transcription?: unknown };
  if (!doc || typeof doc !== "object" || !Array.isArray(doc.transcription)) {
    throw new EngineError('whisper-cli wrote JSON without a "transcription" list.');
  }
  const segments: Cue[] = [];
  for (const s of doc.transcription as { offsets?: { from?: unknown; to?: unknown }; text?: unknown }[]) {
    const text = typeof s?.text === "string" ? s.text.trim() : "";
    if (!text || typeof s.offsets?.from !== "number" || typeof s.offsets.to !== "number") continue;
    segments.push({ startS: s.offsets.from / 1000, endS: s.offsets.to / 1000, text });
  }
  return { text: segments.map((s) => s.text).join(" "), language: normaliseLanguage(doc.result?.language), segments };
}

/** The whisper.cpp engine. */
export function whisperCppSpeech(opts: WhisperCppOptions): SpeechToText {
  return {
    name: "whisper-cpp",
    async transcribe({ audioPath, language, signal }) {
      const outputBase = audioPath.replace(/\.wav$/, "") + ".whisper";
      const timeout = AbortSignal.timeout(opts.timeoutMs);
      const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
      try {
        await runProcess([opts.cli, ...whisperCliArgs({ model: opts.model, audioPath, outputBase, language })], {
          tool: "whisper-cli", signal: combined, track: opts.children && { tracker: opts.children, binary: opts.cli },
        });
        const file = Bun.file(`${outputBase}.json`);
        if (!(await file.exists())) throw new EngineError("whisper-cli ended without writing its JSON output.");
        let doc: unknown;
        try {
          doc = JSON.parse(await file.text());
        } catch {
          throw new EngineError("whisper-cli wrote malformed JSON.");
        }
        return parseWhisperJson(doc);
      } catch (err) {
        if (signal?.aborted) throw signal.reason ?? err;
        if (timeout.aborted) throw new EngineError(`whisper-cli did not finish within ${formatSeconds(opts.timeoutMs)}.`);
        if (err instanceof MediaError) throw new EngineError(err.reason);
        throw err;
      } finally {
        await rm(`${outputBase}.json`, { force: true });
      }
    },
  };
}
