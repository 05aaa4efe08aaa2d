// Summaries and transcripts with engines: a speech clip spoken by espeak-ng goes through the real
// appliance (ffmpeg audio extraction, the OpenAI-compatible speech-to-text call) to a summary and a
// generated caption. The servers are local fixtures that check what Vidhost sent them.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";
import { makeClip, mediaTempDir } from "../fixtures/media";
import { chatAnswer, openAiFixture, wavFormat, type Recorded, type Reply } from "../fixtures/openai-server";
import { TRANSCRIPTS } from "../fixtures/transcripts";
import { createLogger } from "../../src/log";
import { and, eq, inArray } from "drizzle-orm";
import { jobs } from "../../src/db/schema";
import { startTestAppliance, waitFor, type TestAppliance } from "../helpers";
import { ffmpeg, NO_RATE_LIMITS, uploadSource, waitEncoded } from "./vod-support";

/** True while a job of `kind` is queued or running. */
const jobBusy = (a: TestAppliance, kind: string) =>
  !!a.ctx.db.select({ id: jobs.id }).from(jobs).where(and(eq(jobs.kind, kind), inArray(jobs.status, ["queued", "running"]))).get();

setDefaultTimeout(180_000);

const SPOKEN = "Composting turns kitchen scraps and garden waste into rich soil. Mix green material with brown material, keep the pile damp, and turn it every week so that air reaches the centre.";

/** A video whose sound is espeak-ng reading `text` (the length of the speech, 160×120). */
async function speechClip(text: string): Promise<{ path: string; seconds: number }> {
  const dir = mediaTempDir();
  const wav = join(dir, "speech.wav");
  const proc = Bun.spawn(["espeak-ng", "-v", "en", "-s", "170", "-w", wav, text], { stdout: "ignore", stderr: "pipe" });
  if ((await proc.exited) !== 0) throw new Error(`espeak-ng failed: ${await new Response(proc.stderr).text()}`);
  const header = new Uint8Array(await Bun.file(wav).arrayBuffer());
  const fmt = wavFormat(header);
  const seconds = (header.length - 44) / (fmt.sampleRate * fmt.channels * (fmt.bits / 8));
  const path = join(dir, "speech.mp4");
  await ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25", "-i", wav, "-shortest", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-b:a", "64k", "-y", path]);
  return { path, seconds };
}

/** Duration and loudness (RMS of 16-bit samples, 0..1) of a mono 16 kHz WAV upload. */
async function audioFacts(file: File): Promise<{ format: ReturnType<typeof wavFormat>; seconds: number; rms: number }> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  const format = wavFormat(bytes);
  const view = new DataView(bytes.buffer);
  let at = 12;
  while (new TextDecoder().decode(bytes.subarray(at, at + 4)) !== "data") at += 8 + view.getUint32(at + 4, true);
  const start = at + 8;
  const samples = Math.floor((bytes.length - start) / 2);
  let sum = 0;
  for (let i = 0; i < samples; i++) sum += (view.getInt16(start + i * 2, true) / 32768) ** 2;
  return { format, seconds: samples / format.sampleRate, rms: Math.sqrt(sum / samples) };
}

const segmentsOf = (text: string) => text.replace(/\s+/g, " ").trim().split(/(?<=[.!?])\s+/).map((t, i) => ({ id: i, start: i * 3, end: i * 3 + 3, text: ` ${t}` }));
const heard = (text: string, language: string): Reply => ({ json: { task: "transcribe", language, duration: 30, text, segments: segmentsOf(text) } });

let stt: ReturnType<typeof openAiFixture>;
let llm: ReturnType<typeof openAiFixture>;
let sttReply: (req: Recorded) => Reply = () => heard(TRANSCRIPTS.en, "english");
let llmReply: (req: Recorded) => Reply = () => ({ status: 500, text: "unset" });
let app: TestAppliance;
let withLlm: TestAppliance;
const logs: string[] = [];
let speech: { path: string; seconds: number };
let silent: string;

beforeAll(async () => {
  stt = openAiFixture((req) => sttReply(req));
  llm = openAiFixture((req) => llmReply(req));
  [speech, silent] = await Promise.all([speechClip(SPOKEN), makeClip({ width: 160, height: 120, seconds: 1, audio: false })]);
  const sttEnv = { ...NO_RATE_LIMITS, VIDHOST_STT: "openai", VIDHOST_STT_URL: stt.url, VIDHOST_STT_KEY: "stt-secret", VIDHOST_STT_MODEL: "whisper-large-v3", VIDHOST_STT_TIMEOUT_MS: "1500" };
  [app, withLlm] = await Promise.all([
    startTestAppliance({ env: sttEnv, log: createLogger("info", (line) => logs.push(line)) }),
    startTestAppliance({ env: { ...sttEnv, VIDHOST_LLM_URL: `${llm.url}/v1`, VIDHOST_LLM_MODEL: "qwen2.5:7b", VIDHOST_LLM_KEY: "llm-secret" } }),
  ]);
});
afterAll(async () => {
  await Promise.all([app?.close(), withLlm?.close()]);
  await Promise.all([stt?.close(), llm?.close()]);
});

async function call(a: TestAppliance, method: string, path: string, body?: unknown) {
  const res = await a.api(a.sandboxKey, method, path, body);
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

async function uploaded(a: TestAppliance, file: string, fields: Record<string, unknown> = {}): Promise<string> {
  const { body } = await call(a, "POST", "/videos", { title: "spoken", ...fields });
  await uploadSource(a, a.sandboxKey, "sandbox", body.videoId, file);
  await waitEncoded(a, a.sandboxKey, body.videoId, "sandbox");
  return body.videoId;
}

const settled = (a: TestAppliance, videoId: string) => waitFor(`summary of ${videoId}`, async () => {
  const s = (await call(a, "GET", `/summaries?videoId=${videoId}`)).body.data[0];
  return s && s.sourceStatus !== "waiting" ? s : null;
});

/** Asks for a new generation and waits for its end. */
async function regenerate(a: TestAppliance, videoId: string) {
  expect((await call(a, "POST", "/summaries", { videoId, origin: "auto" })).status).toBe(201);
  return settled(a, videoId);
}

describe("speech-to-text through an OpenAI-compatible server", () => {
  test("a spoken clip: the summary and a generated caption come from what the server heard", async () => {
    const before = stt.requests.length;
    const videoId = await uploaded(app, speech.path, { language: "en", transcript: true, transcriptSummary: true });
    const summary = await settled(app, videoId);
    expect(summary).toMatchObject({ origin: "auto", sourceStatus: "completed", failureReason: null });
    const caption = await waitFor("generated caption", async () => {
      const r = await call(app, "GET", `/videos/${videoId}/captions/en`);
      return r.status === 200 ? r.body : null;
    });
    expect(caption).toMatchObject({ srclang: "en", languageName: "English", generated: true, default: false });

    // What Vidhost sent: two transcriptions (summary, transcript), each the real sound as 16 kHz mono WAV.
    const sent = stt.requests.slice(before);
    expect(sent).toHaveLength(2);
    for (const req of sent) {
      expect(req.path).toBe("/v1/audio/transcriptions");
      expect(req.headers.get("authorization")).toBe("Bearer stt-secret");
      expect(req.form!.get("model")).toBe("whisper-large-v3");
      expect(req.form!.get("language")).toBe("en");
      expect(req.form!.get("response_format")).toBe("verbose_json");
      const facts = await audioFacts(req.form!.get("file") as File);
      expect(facts.format).toMatchObject({ riff: "RIFF/WAVE", format: 1, channels: 1, sampleRate: 16000, bits: 16 });
      expect(Math.abs(facts.seconds - speech.seconds)).toBeLessThan(0.5);
      expect(facts.rms).toBeGreaterThan(0.02); // speech, not silence
    }

    const source = (await call(app, "GET", `/summaries/${summary.summaryId}/source`)).body as { abstract: string; takeaways: string[] };
    const text = TRANSCRIPTS.en.replace(/\s+/g, " ");
    expect(source.takeaways).toHaveLength(3);
    for (const t of source.takeaways) expect(text).toContain(t);
    expect(source.abstract.split(" ").length).toBeGreaterThanOrEqual(20);

    const vtt = await (await fetch(caption.src)).text();
    expect(vtt.startsWith("WEBVTT\n\n00:00:00.000 --> 00:00:03.000\nWelcome to this short course on composting at home.\n")).toBe(true);
    expect(await (await fetch(`${app.urls.sandbox}/vod/${videoId}/hls/manifest.m3u8`)).text()).toContain('LANGUAGE="en"');
  });

  test("no language: the heard one is used and set on the video; a new language redoes the transcript", async () => {
    sttReply = (req) => (req.form!.get("language") === "de" ? heard(TRANSCRIPTS.de, "german") : { json: { text: TRANSCRIPTS.fr, language: "french" } });
    try {
      const before = stt.requests.length;
      const videoId = await uploaded(app, speech.path, { transcript: true });
      const fr = await waitFor("French caption", async () => {
        const r = await call(app, "GET", `/videos/${videoId}/captions/fr`);
        return r.status === 200 ? r.body : null;
      });
      expect(fr).toMatchObject({ generated: true, languageName: "français" });
      expect(stt.requests[before].form!.has("language")).toBe(false);
      expect((await call(app, "GET", `/videos/${videoId}`)).body).toMatchObject({ language: "fr", languageOrigin: "auto" });
      // No segments in the answer: one cue over the whole video.
      expect(await (await fetch(fr.src)).text()).toMatch(/^WEBVTT\n\n00:00:00\.000 --> 00:00:\d\d\.\d{3}\nBonjour à toutes/);

      expect((await call(app, "PATCH", `/videos/${videoId}`, { language: "de" })).status).toBe(200);
      await waitFor("German caption replacing the French one", async () => {
        const list = (await call(app, "GET", `/videos/${videoId}/captions`)).body.data as { srclang: string }[];
        return list.length === 1 && list[0].srclang === "de";
      });
      expect(stt.requests.at(-1)!.form!.get("language")).toBe("de");
    } finally {
      sttReply = () => heard(TRANSCRIPTS.en, "english");
    }
  });

  test("an uploaded caption is never overwritten by a transcript", async () => {
    const videoId = await uploaded(app, speech.path, { language: "en" });
    const form = new FormData();
    form.append("file", new Blob(["WEBVTT\n\n00:00.000 --> 00:01.000\nMine\n"]), "mine.vtt");
    await fetch(`${app.urls.sandbox}/videos/${videoId}/captions/en`, { method: "POST", body: form, headers: { authorization: `Basic ${btoa(`${app.sandboxKey}:`)}` } });
    const before = stt.requests.length;
    await call(app, "PATCH", `/videos/${videoId}`, { transcript: true });
    await waitFor("the transcript request", () => stt.requests.length > before);
    await waitFor("transcript job ended", () => !jobBusy(app, "video.transcript"));
    const caption = (await call(app, "GET", `/videos/${videoId}/captions/en`)).body;
    expect(caption.generated).toBe(false);
    expect(await (await fetch(caption.src)).text()).toContain("Mine");
  });

  test("a clip with no audio track is unprocessable and the engine is not called", async () => {
    const before = stt.requests.length;
    const videoId = await uploaded(app, silent, { transcriptSummary: true });
    expect(await settled(app, videoId)).toMatchObject({ sourceStatus: "unprocessable", failureReason: "The video has no audio track and no captions." });
    expect(stt.requests.length).toBe(before);
  });

  test("engine failures end failed with the reason kept and logged; a new generation may follow", async () => {
    const videoId = await uploaded(app, speech.path, { language: "en" });
    try {
      sttReply = () => ({ status: 500, text: "model exploded" });
      expect(await regenerate(app, videoId)).toMatchObject({ sourceStatus: "failed", failureReason: "The speech-to-text server answered 500: model exploded" });
      await waitFor("the failure logged", () => logs.some((l) => l.includes("summary failed") && l.includes("model exploded") && l.includes(videoId)));

      sttReply = () => "hang";
      expect(await regenerate(app, videoId)).toMatchObject({ sourceStatus: "failed", failureReason: "The speech-to-text server did not answer within 1.5 s." });

      sttReply = () => ({ text: "{ not json" });
      expect(await regenerate(app, videoId)).toMatchObject({ sourceStatus: "failed", failureReason: "The speech-to-text server answered with malformed JSON: { not json" });

      sttReply = () => heard("Thank you. Goodbye.", "english");
      expect(await regenerate(app, videoId)).toMatchObject({ sourceStatus: "unprocessable", failureReason: "The speech holds 3 words; a summary needs at least 50." });
    } finally {
      sttReply = () => heard(TRANSCRIPTS.en, "english");
    }
    expect(await regenerate(app, videoId)).toMatchObject({ sourceStatus: "completed" });
  });
});

describe("summaries from an OpenAI-compatible chat server", () => {
  const answer = { abstract: "A short talk on home composting: balance green and brown material, keep the pile damp and aired, and use the finished compost on your beds.", takeaways: ["Balance green and brown material.", "Keep the pile damp and turn it.", "Use the finished compost on your beds."] };

  test("the transcript goes to the chat server, its JSON becomes the source", async () => {
    llmReply = () => ({ json: chatAnswer(JSON.stringify(answer)) });
    const videoId = await uploaded(withLlm, speech.path, { language: "en" });
    const summary = await regenerate(withLlm, videoId);
    expect(summary.sourceStatus).toBe("completed");
    expect((await call(withLlm, "GET", `/summaries/${summary.summaryId}/source`)).body).toEqual(answer);
    const req = llm.requests.at(-1)!;
    expect(req.path).toBe("/v1/chat/completions");
    expect(req.headers.get("authorization")).toBe("Bearer llm-secret");
    const body = req.json as { model: string; messages: { role: string; content: string }[] };
    expect(body.model).toBe("qwen2.5:7b");
    expect(body.messages[0].content).toContain("one JSON object");
    expect(body.messages[1].content).toBe(`Language: en\nTranscript:\n${TRANSCRIPTS.en.trim()}`);
  });

  test("a chat answer that is not the JSON asked for fails the summary", async () => {
    llmReply = () => ({ json: chatAnswer("I cannot summarise this.") });
    const videoId = await uploaded(withLlm, speech.path, { language: "en" });
    expect(await regenerate(withLlm, videoId)).toMatchObject({
      sourceStatus: "failed", failureReason: "The language model did not answer with the JSON object asked for: I cannot summarise this.",
    });
    llmReply = () => ({ status: 503, text: "loading model" });
    expect(await regenerate(withLlm, videoId)).toMatchObject({ sourceStatus: "failed", failureReason: "The language model server answered 503: loading model" });
  });
});
