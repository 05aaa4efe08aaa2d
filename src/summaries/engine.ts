// The summary seam: an OpenAI-compatible chat server when VIDHOST_LLM_URL is set, otherwise the
// built-in extractive summariser (no model, no network).
import type { Config } from "../config";
import { extractiveSummary } from "./extractive";
import { llmSummariser } from "./llm";

export type SummaryAttribute = "abstract" | "takeaways";
export const SUMMARY_ATTRIBUTES: SummaryAttribute[] = ["abstract", "takeaways"];

/** A summary's source: the attributes asked for. */
export interface SummarySource {
  abstract?: string;
  takeaways?: string[];
}

/** Writes a summary of a transcript; failures throw EngineError. */
export interface Summariser {
  readonly name: string;
  summarise(input: { transcript: string; language: string | null; attributes: SummaryAttribute[]; signal?: AbortSignal }): Promise<SummarySource>;
}

/** The built-in summariser (TextRank over TF-IDF sentence vectors). */
export const extractiveSummariser: Summariser = {
  name: "extractive",
  async summarise({ transcript, language, attributes }) {
    return extractiveSummary(transcript, { language, attributes });
  },
};

/** The configured summariser. */
export function summariser(config: Config): Summariser {
  return config.llmUrl ? llmSummariser({ url: config.llmUrl, model: config.llmModel, key: config.llmKey, timeoutMs: config.llmTimeoutMs }) : extractiveSummariser;
}
