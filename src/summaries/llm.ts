// Summaries from any OpenAI-compatible chat completions server (Ollama, llama.cpp's server,
// LocalAI, vLLM, OpenAI): one request asking for a JSON object with the abstract and takeaways.
import { bearer, EngineError, openAiEndpoint, postForJson, snippet } from "../speech/outbound";
import { ABSTRACT_MAX_WORDS } from "./extractive";
import type { Summariser, SummaryAttribute, SummarySource } from "./engine";

export interface LlmOptions {
  url: string;
  model: string;
  key: string;
  timeoutMs: number;
}

const WHAT = "The language model server";
/** Long transcripts are cut to this many characters (about 15k tokens) so they fit small local models. */
export const MAX_TRANSCRIPT_CHARS = 60_000;

/** The system prompt: what to write and the exact JSON shape. */
export function systemPrompt(attributes: SummaryAttribute[]): string {
  const fields: string[] = [];
  if (attributes.includes("abstract")) fields.push('"abstract": a short outline of the video\'s content, 20 to 300 words');
  if (attributes.includes("takeaways")) fields.push('"takeaways": an array of exactly 3 strings, the key points, in the order they occur in the video');
  return [
    "You summarise transcripts of videos.",
    `Answer with one JSON object and nothing else, with ${fields.length === 1 ? "this field" : "these fields"}: ${fields.join("; ")}.`,
    "Write in the language of the transcript. Do not mention that it is a transcript.",
  ].join("\n");
}

/** The chat completions request body (exported for tests). */
export function chatRequest(opts: { model: string; transcript: string; language: string | null; attributes: SummaryAttribute[] }) {
  const text = opts.transcript.length > MAX_TRANSCRIPT_CHARS ? opts.transcript.slice(0, MAX_TRANSCRIPT_CHARS) : opts.transcript;
  return {
    model: opts.model,
    temperature: 0,
    stream: false,
    response_format: { type: "json_object" },
    messages: [
      { role: "system", content: systemPrompt(opts.attributes) },
      { role: "user", content: `${opts.language ? `Language: ${opts.language}\n` : ""}Transcript:\n${text}` },
    ],
  };
}

// An abstract over the limit is cut after the last sentence that fits (or at the limit).
function clampWords(text: string): string {
  const words = text.split(/\s+/).filter(Boolean);
  if (words.length <= ABSTRACT_MAX_WORDS) return words.join(" ");
  const cut = words.slice(0, ABSTRACT_MAX_WORDS).join(" ");
  const end = Math.max(cut.lastIndexOf(". "), cut.lastIndexOf("! "), cut.lastIndexOf("? "));
  return end > cut.length / 2 ? cut.slice(0, end + 1) : cut;
}

/** Reads the chat answer: `choices[0].message.content` holding the JSON object asked for. */
export function parseChatAnswer(body: unknown, attributes: SummaryAttribute[]): SummarySource {
  const content = (body as { choices?: { message?: { content?: unknown } }[] })?.choices?.[0]?.message?.content;
  if (typeof content !== "string") throw new EngineError(`${WHAT} answered without choices[0].message.content.`);
  // Models like to wrap JSON in a Markdown fence despite being asked not to.
  const unfenced = content.trim().replace(/^```(?:json)?\s*/i, "").replace(/\s*```$/, "");
  let parsed: { abstract?: unknown; takeaways?: unknown };
  try {
    parsed = JSON.parse(unfenced);
  } catch {
    throw new EngineError(`The language model did not answer with the JSON object asked for: ${snippet(content, 120)}`);
  }
  const source: SummarySource = {};
  if (attributes.includes("abstract")) {
    if (typeof parsed?.abstract !== "string" || !parsed.abstract.trim()) throw new EngineError("The language model's answer has no abstract.");
    source.abstract = clampWords(parsed.abstract.trim());
  }
  if (attributes.includes("takeaways")) {
    const list = Array.isArray(parsed?.takeaways) ? parsed.takeaways.filter((t): t is string => typeof t === "string" && t.trim() !== "").map((t) => t.trim()) : [];
    if (list.length < 3) throw new EngineError(`The language model gave ${list.length} takeaways; 3 are needed.`);
    source.takeaways = list.slice(0, 3);
  }
  return source;
}

/** The chat-server summariser. */
export function llmSummariser(opts: LlmOptions): Summariser {
  const url = openAiEndpoint(opts.url, "chat/completions");
  return {
    name: "llm",
    async summarise({ transcript, language, attributes, signal }) {
      const body = JSON.stringify(chatRequest({ model: opts.model, transcript, language, attributes }));
      const answer = await postForJson(WHAT, url, { body, headers: { "content-type": "application/json", ...bearer(opts.key) } }, opts.timeoutMs, signal);
      return parseChatAnswer(answer, attributes);
    },
  };
}
