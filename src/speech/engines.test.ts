// The engines against local stand-ins of the servers and tools they call: what Vidhost sends
// (model, audio file, prompt) and how it takes 500s, timeouts, malformed answers and crashes.
import { afterEach, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeClip, mediaTempDir, testMediaTools } from "../../test/fixtures/media";
import { chatAnswer, openAiFixture, wavFormat } from "../../test/fixtures/openai-server";
import { TRANSCRIPTS } from "../../test/fixtures/transcripts";
import { loadConfig } from "../config";
import { speechAudioArgs } from "../media/args-audio";
import { runFfmpeg } from "../media/ffmpeg";
import { summariser } from "../summaries/engine";
import { llmSummariser } from "../summaries/llm";
import { countWords, normaliseLanguage, speechEngine } from "./engine";
import { openAiSpeech } from "./openai";
import { EngineError, openAiEndpoint } from "./outbound";
import { parseWhisperJson, whisperCliArgs, whisperCppSpeech } from "./whisper-cpp";

setDefaultTimeout(30_000);

let wav: string;
beforeAll(async () => {
  // Real extraction with the real argument builder: a 2 s clip with a 48 kHz stereo-capable tone.
  const clip = await makeClip({ width: 160, height: 120, seconds: 2 });
  wav = join(mediaTempDir(), "speech.wav");
  await runFfmpeg(testMediaTools(), speechAudioArgs(clip, wav));
});

const fixtures: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(fixtures.splice(0).map((f) => f.close()));
});
function fixture(...args: Parameters<typeof openAiFixture>) {
  const f = openAiFixture(...args);
  fixtures.push(f);
  return f;
}

/** The EngineError reason a promise rejects with. */
async function reason(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    if (err instanceof EngineError) return err.reason;
    throw err;
  }
  throw new Error("expected an EngineError");
}

describe("endpoints", () => {
  test.each([
    ["http://h:8000", "http://h:8000/v1/audio/transcriptions"],
    ["http://h:8000/", "http://h:8000/v1/audio/transcriptions"],
    ["http://h/v1", "http://h/v1/audio/transcriptions"],
    ["http://h/api/v1/audio/transcriptions", "http://h/api/v1/audio/transcriptions"],
  ])("%s → %s", (base, url) => {
    expect(openAiEndpoint(base, "audio/transcriptions")).toBe(url);
  });
});

describe("OpenAI-compatible speech-to-text", () => {
  test("sends the 16 kHz mono WAV, the model and the language; reads text, language and segments", async () => {
    const server = fixture(() => ({
      json: { task: "transcribe", language: "french", duration: 2, text: " Bonjour tout le monde. ", segments: [{ id: 0, start: 0, end: 1.5, text: " Bonjour tout le monde." }] },
    }));
    const engine = openAiSpeech({ url: server.url, key: "sk-local", model: "Systran/faster-whisper-small", timeoutMs: 5000 });
    const heard = await engine.transcribe({ audioPath: wav, language: "fr" });
    expect(heard).toEqual({ text: "Bonjour tout le monde.", language: "fr", segments: [{ startS: 0, endS: 1.5, text: "Bonjour tout le monde." }] });

    const [req] = server.requests;
    expect(req.method).toBe("POST");
    expect(req.path).toBe("/v1/audio/transcriptions");
    expect(req.headers.get("authorization")).toBe("Bearer sk-local");
    expect(req.form!.get("model")).toBe("Systran/faster-whisper-small");
    expect(req.form!.get("response_format")).toBe("verbose_json");
    expect(req.form!.get("language")).toBe("fr");
    const file = req.form!.get("file") as File;
    expect(file.name).toBe("audio.wav");
    expect(file.type).toMatch(/^audio\/(x-)?wav$/);
    const bytes = new Uint8Array(await file.arrayBuffer());
    expect(bytes).toEqual(new Uint8Array(readFileSync(wav)));
    expect(wavFormat(bytes)).toEqual({ riff: "RIFF/WAVE", format: 1, channels: 1, sampleRate: 16000, bits: 16 });
    // 2 s of 16-bit mono at 16 kHz, plus the header.
    expect(bytes.length).toBeGreaterThan(2 * 16000 * 2 * 0.95);
  });

  test("no language: none is sent, the detected one is read; no key: no Authorization", async () => {
    const server = fixture(() => ({ json: { text: "hello", language: "en" } }));
    const heard = await openAiSpeech({ url: `${server.url}/v1`, key: "", model: "whisper-1", timeoutMs: 5000 }).transcribe({ audioPath: wav, language: null });
    expect(heard).toEqual({ text: "hello", language: "en", segments: [] });
    expect(server.requests[0].form!.has("language")).toBe(false);
    expect(server.requests[0].headers.get("authorization")).toBeNull();
  });

  test("a 500 fails with the server's words", async () => {
    const server = fixture(() => ({ status: 500, text: "CUDA out of memory\n" }));
    const engine = openAiSpeech({ url: server.url, key: "", model: "m", timeoutMs: 5000 });
    expect(await reason(engine.transcribe({ audioPath: wav, language: null }))).toBe("The speech-to-text server answered 500: CUDA out of memory");
  });

  test("a server that never answers times out", async () => {
    const server = fixture(() => "hang");
    const engine = openAiSpeech({ url: server.url, key: "", model: "m", timeoutMs: 300 });
    expect(await reason(engine.transcribe({ audioPath: wav, language: null }))).toBe("The speech-to-text server did not answer within 0.3 s.");
  });

  test("malformed JSON, or JSON without text", async () => {
    const broken = fixture(() => ({ text: '{"text": "cut' }));
    expect(await reason(openAiSpeech({ url: broken.url, key: "", model: "m", timeoutMs: 5000 }).transcribe({ audioPath: wav, language: null })))
      .toBe('The speech-to-text server answered with malformed JSON: {"text": "cut');
    const textless = fixture(() => ({ json: { error: "no" } }));
    expect(await reason(openAiSpeech({ url: textless.url, key: "", model: "m", timeoutMs: 5000 }).transcribe({ audioPath: wav, language: null })))
      .toBe('The speech-to-text server answered without a "text" field.');
  });

  test("a server that is not there", async () => {
    const gone = fixture(() => ({ json: {} }));
    const url = gone.url;
    await gone.close();
    expect(await reason(openAiSpeech({ url, key: "", model: "m", timeoutMs: 5000 }).transcribe({ audioPath: wav, language: null })))
      .toStartWith("The speech-to-text server could not be reached:");
  });

  test("a shutdown aborts the call without turning it into a reason", async () => {
    const server = fixture(() => "hang");
    const stop = new AbortController();
    const call = openAiSpeech({ url: server.url, key: "", model: "m", timeoutMs: 60_000 }).transcribe({ audioPath: wav, language: null, signal: stop.signal });
    await Promise.resolve();
    stop.abort(new Error("shutting down"));
    expect(call).rejects.toThrow("shutting down");
  });
});

describe("OpenAI-compatible chat summaries", () => {
  const transcript = TRANSCRIPTS.en;
  const good = { abstract: "Composting turns kitchen and garden waste into rich soil when green and brown material are balanced, the pile gets air and water, and unsuitable food stays out.", takeaways: ["Balance green and brown material.", "Keep the pile damp and turn it.", "Finished compost smells like a forest floor."] };

  test("asks for JSON with the model, the transcript and the attributes; reads the answer", async () => {
    const server = fixture(() => ({ json: chatAnswer(JSON.stringify(good)) }));
    const engine = llmSummariser({ url: server.url, model: "llama3.2:3b", key: "ollama", timeoutMs: 5000 });
    expect(await engine.summarise({ transcript, language: "en", attributes: ["abstract", "takeaways"] })).toEqual(good);
    const [req] = server.requests;
    expect(req.path).toBe("/v1/chat/completions");
    expect(req.headers.get("authorization")).toBe("Bearer ollama");
    const body = req.json as { model: string; temperature: number; stream: boolean; response_format: unknown; messages: { role: string; content: string }[] };
    expect(body.model).toBe("llama3.2:3b");
    expect(body.temperature).toBe(0);
    expect(body.stream).toBe(false);
    expect(body.response_format).toEqual({ type: "json_object" });
    expect(body.messages.map((m) => m.role)).toEqual(["system", "user"]);
    expect(body.messages[0].content).toContain("one JSON object");
    expect(body.messages[0].content).toContain('"abstract": a short outline of the video\'s content, 20 to 300 words');
    expect(body.messages[0].content).toContain('"takeaways": an array of exactly 3 strings, the key points, in the order they occur in the video');
    expect(body.messages[1].content).toBe(`Language: en\nTranscript:\n${transcript}`);
  });

  test("only the attributes asked for", async () => {
    const server = fixture(() => ({ json: chatAnswer(JSON.stringify({ takeaways: [...good.takeaways, "a fourth"] })) }));
    const engine = llmSummariser({ url: server.url, model: "m", key: "", timeoutMs: 5000 });
    expect(await engine.summarise({ transcript, language: null, attributes: ["takeaways"] })).toEqual({ takeaways: good.takeaways });
    const system = (server.requests[0].json as { messages: { content: string }[] }).messages[0].content;
    expect(system).not.toContain('"abstract"');
    expect((server.requests[0].json as { messages: { content: string }[] }).messages[1].content).toStartWith("Transcript:\n");
  });

  test("JSON in a Markdown fence is read; an abstract over 300 words is cut", async () => {
    const long = Array.from({ length: 40 }, (_, i) => `Sentence number ${i} has exactly eight words.`).join(" ");
    const server = fixture(() => ({ json: chatAnswer("```json\n" + JSON.stringify({ ...good, abstract: long }) + "\n```") }));
    const out = await llmSummariser({ url: server.url, model: "m", key: "", timeoutMs: 5000 }).summarise({ transcript, language: null, attributes: ["abstract", "takeaways"] });
    expect(out.abstract!.split(" ").length).toBeLessThanOrEqual(300);
    expect(out.abstract!.endsWith("words.")).toBe(true);
  });

  test.each([
    ["a 500", () => ({ status: 500, text: "model not loaded" }), "The language model server answered 500: model not loaded"],
    ["a body that is not JSON", () => ({ text: "<html>proxy error</html>" }), "The language model server answered with malformed JSON: <html>proxy error</html>"],
    ["no choices", () => ({ json: { error: { message: "x" } } }), "The language model server answered without choices[0].message.content."],
    ["content that is not JSON", () => ({ json: chatAnswer("Sure! Here is a summary: composting is good.") }), "The language model did not answer with the JSON object asked for: Sure! Here is a summary: composting is good."],
    ["two takeaways", () => ({ json: chatAnswer(JSON.stringify({ abstract: good.abstract, takeaways: ["a", "b"] })) }), "The language model gave 2 takeaways; 3 are needed."],
    ["no abstract", () => ({ json: chatAnswer(JSON.stringify({ takeaways: good.takeaways })) }), "The language model's answer has no abstract."],
  ] as const)("%s fails with a reason", async (_name, answer, expected) => {
    const server = fixture(answer as () => never);
    const engine = llmSummariser({ url: server.url, model: "m", key: "", timeoutMs: 5000 });
    expect(await reason(engine.summarise({ transcript, language: null, attributes: ["abstract", "takeaways"] }))).toBe(expected);
  });

  test("a server that never answers times out", async () => {
    const server = fixture(() => "hang");
    const engine = llmSummariser({ url: server.url, model: "m", key: "", timeoutMs: 250 });
    expect(await reason(engine.summarise({ transcript, language: null, attributes: ["abstract"] }))).toBe("The language model server did not answer within 0.3 s.");
  });
});

describe("whisper.cpp's whisper-cli", () => {
  const WHISPER_JSON = {
    systeminfo: "AVX = 1", model: { type: "base" }, params: { model: "ggml-base.bin", language: "auto", translate: false },
    result: { language: "de" },
    transcription: [
      { timestamps: { from: "00:00:00,000", to: "00:00:02,500" }, offsets: { from: 0, to: 2500 }, text: " Guten Tag." },
      { timestamps: { from: "00:00:02,500", to: "00:00:04,000" }, offsets: { from: 2500, to: 4000 }, text: " Wie geht es?" },
    ],
  };

  /** A stand-in whisper-cli (a shell script): records its arguments, then runs `body`. */
  function fakeCli(body: string): { path: string; argsFile: string } {
    const dir = mediaTempDir();
    const argsFile = join(dir, "args.txt");
    const path = join(dir, "whisper-cli");
    writeFileSync(path, `#!/bin/sh\nprintf '%s\\n' "$@" > ${JSON.stringify(argsFile)}\n${body}\n`);
    chmodSync(path, 0o755);
    return { path, argsFile };
  }
  // The script finds the value after -of, like whisper-cli, and writes there.
  const writeJson = (json: string) => `out=""; prev=""; for a in "$@"; do [ "$prev" = "-of" ] && out="$a"; prev="$a"; done\ncat > "$out.json" <<'JSON'\n${json}\nJSON`;

  test("golden arguments", () => {
    expect(whisperCliArgs({ model: "/models/ggml-base.bin", audioPath: "/m/a.wav", outputBase: "/m/a.whisper", language: "fr" })).toEqual([
      "-m", "/models/ggml-base.bin", "-f", "/m/a.wav", "-l", "fr", "-oj", "-of", "/m/a.whisper", "-np",
    ]);
    expect(whisperCliArgs({ model: "m", audioPath: "a.wav", outputBase: "a", language: null })).toContain("auto");
  });

  test("parses -oj output", () => {
    expect(parseWhisperJson(WHISPER_JSON)).toEqual({
      text: "Guten Tag. Wie geht es?", language: "de",
      segments: [{ startS: 0, endS: 2.5, text: "Guten Tag." }, { startS: 2.5, endS: 4, text: "Wie geht es?" }],
    });
    expect(() => parseWhisperJson({ result: {} })).toThrow('whisper-cli wrote JSON without a "transcription" list.');
  });

  test("spawns the binary with its arguments, reads and removes the JSON it wrote", async () => {
    const cli = fakeCli(writeJson(JSON.stringify(WHISPER_JSON)));
    const engine = whisperCppSpeech({ cli: cli.path, model: "/models/ggml-base.bin", timeoutMs: 10_000 });
    const heard = await engine.transcribe({ audioPath: wav, language: null });
    expect(heard.text).toBe("Guten Tag. Wie geht es?");
    expect(heard.language).toBe("de");
    const base = wav.replace(/\.wav$/, ".whisper");
    expect(readFileSync(cli.argsFile, "utf8").trim().split("\n")).toEqual(["-m", "/models/ggml-base.bin", "-f", wav, "-l", "auto", "-oj", "-of", base, "-np"]);
    expect(await Bun.file(`${base}.json`).exists()).toBe(false);
  });

  test("a failing run, silence, malformed output, a hang and a missing binary", async () => {
    const failing = fakeCli(`echo "error: failed to open 'ggml-base.bin'" >&2; exit 3`);
    expect(await reason(whisperCppSpeech({ cli: failing.path, model: "m", timeoutMs: 10_000 }).transcribe({ audioPath: wav, language: "en" })))
      .toBe("whisper-cli failed: error: failed to open 'ggml-base.bin'");
    const silent = fakeCli("exit 0");
    expect(await reason(whisperCppSpeech({ cli: silent.path, model: "m", timeoutMs: 10_000 }).transcribe({ audioPath: wav, language: "en" })))
      .toBe("whisper-cli ended without writing its JSON output.");
    const garbled = fakeCli(writeJson("{ not json"));
    expect(await reason(whisperCppSpeech({ cli: garbled.path, model: "m", timeoutMs: 10_000 }).transcribe({ audioPath: wav, language: "en" })))
      .toBe("whisper-cli wrote malformed JSON.");
    const stuck = fakeCli("exec tail -f /dev/null");
    expect(await reason(whisperCppSpeech({ cli: stuck.path, model: "m", timeoutMs: 300 }).transcribe({ audioPath: wav, language: "en" })))
      .toBe("whisper-cli did not finish within 0.3 s.");
    expect(await reason(whisperCppSpeech({ cli: "/nonexistent/whisper-cli", model: "m", timeoutMs: 1000 }).transcribe({ audioPath: wav, language: "en" })))
      .toStartWith("whisper-cli could not be started");
  });
});

describe("engines chosen by settings", () => {
  const config = (env: Record<string, string>) => loadConfig([], env);

  test("none, openai, whisper-cpp; extractive unless a chat server is set", () => {
    expect(speechEngine(config({}))).toBeNull();
    expect(speechEngine(config({ VIDHOST_STT: "openai", VIDHOST_STT_URL: "http://127.0.0.1:9/" }))?.name).toBe("openai");
    expect(speechEngine(config({ VIDHOST_STT: "whisper-cpp", VIDHOST_WHISPER_MODEL: "/m/ggml-base.bin" }))?.name).toBe("whisper-cpp");
    expect(summariser(config({})).name).toBe("extractive");
    expect(summariser(config({ VIDHOST_LLM_URL: "http://127.0.0.1:11434", VIDHOST_LLM_MODEL: "llama3.2" })).name).toBe("llm");
  });

  test("flags win over the environment and everything is checked", () => {
    const c = loadConfig(["--stt", "openai", "--stt-url", "http://stt:8000/", "--stt-timeout-ms", "5000", "--llm-url=http://llm:11434", "--llm-model", "qwen"], { VIDHOST_STT: "whisper-cpp" });
    expect(c).toMatchObject({ sttEngine: "openai", sttUrl: "http://stt:8000", sttModel: "whisper-1", sttTimeoutMs: 5000, llmUrl: "http://llm:11434", llmModel: "qwen", llmTimeoutMs: 300000 });
    expect(() => config({ VIDHOST_STT: "vosk" })).toThrow("VIDHOST_STT must be openai or whisper-cpp");
    expect(() => config({ VIDHOST_STT: "openai" })).toThrow("VIDHOST_STT=openai needs VIDHOST_STT_URL");
    expect(() => config({ VIDHOST_STT: "openai", VIDHOST_STT_URL: "stt:8000" })).toThrow("must be an http(s) URL");
    expect(() => config({ VIDHOST_STT: "whisper-cpp" })).toThrow("needs VIDHOST_WHISPER_MODEL");
    expect(() => config({ VIDHOST_LLM_URL: "http://llm" })).toThrow("needs VIDHOST_LLM_MODEL");
    expect(() => config({ VIDHOST_LLM_TIMEOUT_MS: "soon" })).toThrow("VIDHOST_LLM_TIMEOUT_MS");
  });
});

describe("words and languages", () => {
  test("counting words", () => {
    expect(countWords("Hello, world! It’s a well-known fact: 3 cats.")).toBe(8);
    expect(countWords("  ")).toBe(0);
    expect(countWords("日本語です")).toBe(5);
  });

  test("engine languages", () => {
    expect(normaliseLanguage("french")).toBe("fr");
    expect(normaliseLanguage("EN")).toBe("en");
    expect(normaliseLanguage("pt-BR")).toBe("pt");
    expect(normaliseLanguage("klingon")).toBeNull();
    expect(normaliseLanguage(undefined)).toBeNull();
  });
});
