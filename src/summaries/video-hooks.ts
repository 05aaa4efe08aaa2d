// What `transcript`, `language`, `transcriptSummary` and `transcriptSummaryAttributes` on video
// create and update start (api.video §7): a summary generation and a transcript.
import type { ScopeCtx } from "../context";
import { requestTranscript } from "../transcripts/job";
import type { VideoRow } from "../videos/body";
import type { VideoInput } from "../videos/service";
import { SUMMARY_ATTRIBUTES, type SummaryAttribute } from "./engine";
import { holdsVideo, startSummary, summaryConflict, videoSummary } from "./state";

/** True when the request asks for a summary: `transcriptSummary: true`, or attributes without `transcriptSummary: false`. */
const wantsSummary = (input: VideoInput) =>
  input.transcriptSummary === true || (input.transcriptSummary === undefined && input.transcriptSummaryAttributes !== undefined);

/** PATCH /videos/{id}: 409 `summary-already-exists` (name transcriptSummary) before anything changes, when a summary is asked for while one is waiting or completed. */
export function checkVideoUpdate(ctx: ScopeCtx, videoId: string, input: VideoInput): void {
  const existing = wantsSummary(input) ? videoSummary(ctx, videoId) : undefined;
  if (existing && holdsVideo(existing)) throw summaryConflict("transcriptSummary");
}

/** After a create (`before` null) or update: starts the summary and the transcript the request asked for. */
export function afterVideoSaved(ctx: ScopeCtx, before: VideoRow | null, after: VideoRow, input: VideoInput): void {
  if (wantsSummary(input)) {
    const given = input.transcriptSummaryAttributes?.filter((a): a is SummaryAttribute => (SUMMARY_ATTRIBUTES as string[]).includes(a));
    const attributes = given?.length ? SUMMARY_ATTRIBUTES.filter((a) => given.includes(a)) : SUMMARY_ATTRIBUTES;
    startSummary(ctx, ctx, after.id, { origin: "auto", attributes, conflictName: "transcriptSummary" });
  }
  // `transcript: true` asks for one; a new language redoes it when transcripts are on.
  const languageChanged = before !== null && input.language !== undefined && input.language !== null && input.language !== before.language;
  if (input.transcript === true || (languageChanged && after.transcript)) requestTranscript(ctx, after.id);
}
