import { and, eq } from "drizzle-orm";
import { atom } from "../clock";
import type { AppContext } from "../context";
import { videos } from "../db/schema";
import { hlsLadderArgs, mp4FromHlsArgs, remuxHlsArgs, thumbnailTime, watermarkInput, type WatermarkInput } from "../media/args";
import { keyframeTimes, probe, runFfmpeg } from "../media/ffmpeg";
import { isRemuxable, ladderFor, type Rendition } from "../media/ladder";
import { isMachineFault, MediaError } from "../media/media-error";
import type { ProbeResult } from "../media/probe-parse";
import type { StorageKey } from "../media/storage";
import type { MediaTools } from "../media/tools";
import type { JobHandler, JobRun } from "../jobs/queue";
import type { VideoRow } from "../videos/body";
import { ENCODE_JOB, videoKey } from "../videos/service";
import { renderThumbnail } from "../videos/thumbnail";
import { videoWatermarkKey, watermarkOf } from "../videos/creation-extras";
import { serverFault } from "../jobs/failure";
import { attempt, MACHINE_FAULT_RETRY_MS, publishStaged, videoJobHandler } from "./attempt";
import { clipOf, resolveClip } from "./clip";
import { failEncoding, failUnprobed, markEncoded, planRenditions, setStatus, type RenditionRow } from "./renditions";
import { SANDBOX_LIMIT_S, sandboxWatermark } from "./sandbox";

/** Sources longer than this are refused (DESIGN.md: uploads of at most 1440 minutes). */
const MAX_DURATION_S = 1440 * 60;
/** Short segments start playback fast; 4 s keeps playlists small for long videos. */
const SEGMENT_S = 4;

interface Encode {
  app: AppContext;
  row: VideoRow;
  source: string;
  probe: ProbeResult;
  ladder: Rendition[];
  run: JobRun;
  /** The part of the source to deliver (POST /videos `clip`), resolved against the probe. */
  clip?: { startS: number; endS: number };
  /** This attempt's own folder: ffmpeg writes there, and finished outputs are moved into place. */
  stage: StorageKey;
}

const hlsDir = (e: Encode) => e.app.storage.localDir(videoKey(e.row, "hls"));
const stagedHlsDir = (e: Encode) => e.app.storage.localDir([...e.stage, "hls"]);

/** Moves finished outputs from the attempt's folder into place (see publishStaged). */
const publish = (e: Encode, from: string[], to: string[]) => publishStaged(e.app, e.row, e.stage, from, to);

function pending(rows: RenditionRow[], type: "hls" | "mp4"): RenditionRow[] {
  return rows.filter((r) => r.type === type && r.status !== "encoded");
}

/** The top rung served as a stream copy of the source: playable in about a second, no quality loss. */
async function remuxTop(e: Encode, top: Rendition): Promise<void> {
  setStatus(e.app, e.row.id, [{ type: "hls", quality: top.name }], "encoding");
  await runFfmpeg(e.app.media as MediaTools, remuxHlsArgs(e.source, `${stagedHlsDir(e)}/${top.name}`, { segmentS: SEGMENT_S, hasAudio: e.probe.hasAudio }), { signal: e.run.signal, nice: true });
  await publish(e, ["hls", top.name], ["hls", top.name]);
  const bandwidth = e.probe.bitrateKbps ? Math.round(e.probe.bitrateKbps * 1000 * 1.2) : undefined;
  markEncoded(e.app, e.row, [{ type: "hls", quality: top.name, bandwidth }]);
}

/** The customer's watermark (POST /videos `watermark`), then the sandbox's on top of it. */
function watermarksOf(e: Encode): WatermarkInput[] {
  const marks: WatermarkInput[] = [];
  const own = watermarkOf(e.row);
  if (own) marks.push(watermarkInput(e.app.storage.localPath(videoWatermarkKey(e.row, own.format)), own, e.probe));
  if (e.row.environment === "sandbox") marks.push(sandboxWatermark(e.app, e.probe));
  return marks;
}

/** Every remaining rung in one ffmpeg process (1.3–1.4× faster than one per rung). */
async function encodeLadder(e: Encode, rungs: Rendition[], alignTo?: number[]): Promise<void> {
  const keys = rungs.map((r) => ({ type: "hls", quality: r.name }));
  setStatus(e.app, e.row.id, keys, "encoding");
  const sandbox = e.row.environment === "sandbox";
  const args = hlsLadderArgs(e.source, rungs, stagedHlsDir(e), {
    hasAudio: e.probe.hasAudio,
    frameRate: e.probe.frameRate,
    segmentS: SEGMENT_S,
    limitS: sandbox ? SANDBOX_LIMIT_S : undefined,
    clip: e.clip,
    watermarks: watermarksOf(e),
    keyframeTimes: alignTo,
  });
  await runFfmpeg(e.app.media as MediaTools, args, { signal: e.run.signal, nice: true });
  for (const r of rungs) await publish(e, ["hls", r.name], ["hls", r.name]);
  markEncoded(e.app, e.row, rungs.map((r) => ({ type: "hls" as const, quality: r.name })));
}

/** The MP4: a stream copy of the top HLS rendition (0.15 s, where encoding it costs a third of the job). */
async function packageMp4(e: Encode, top: Rendition): Promise<void> {
  setStatus(e.app, e.row.id, [{ type: "mp4", quality: top.name }], "encoding");
  const output = e.app.storage.localPath([...e.stage, "mp4", "source.mp4"], true);
  await runFfmpeg(e.app.media as MediaTools, mp4FromHlsArgs(`${hlsDir(e)}/${top.name}/index.m3u8`, output), { signal: e.run.signal, nice: true });
  await publish(e, ["mp4", "source.mp4"], ["mp4", "source.mp4"]);
  markEncoded(e.app, e.row, [{ type: "mp4", quality: top.name }]);
}

/**
 * Renders the thumbnail the video should have now: a timecode picked before it was playable, else
 * the automatic pick unless one was uploaded or picked. Reads the row afresh: a user may have
 * uploaded or picked one while the video was encoding.
 */
async function applyThumbnail(e: Encode, onlyPicked: boolean): Promise<void> {
  const row = e.app.db.select().from(videos).where(eq(videos.id, e.row.id)).get();
  if (!row) return;
  const picked = row.thumbnailAt;
  if (picked === null && (onlyPicked || row.thumbnailCustom)) return;
  const automatic = picked === null;
  const rendered = await renderThumbnail(e.app, { ...row, probe: e.row.probe }, picked ?? thumbnailTime(delivered(e)), {
    signal: e.run.signal,
    // An upload or pick that lands while the automatic frame renders wins over it.
    keep: () => !automatic || !e.app.db.select({ custom: videos.thumbnailCustom }).from(videos).where(eq(videos.id, row.id)).get()?.custom,
  });
  if (rendered && picked !== null) {
    e.app.db.update(videos).set({ thumbnailAt: null }).where(and(eq(videos.id, row.id), eq(videos.thumbnailAt, picked))).run();
  }
}

/** Seconds of the source that are delivered: the clip's length, else the whole (the sandbox cut aside). */
const delivered = (e: Encode): number => (e.clip ? e.clip.endS - e.clip.startS : e.probe.durationS);

async function encode(e: Encode): Promise<void> {
  const rows = planRenditions(e.app, e.row, e.ladder);
  const top = e.ladder[e.ladder.length - 1];
  const todo = new Set(pending(rows, "hls").map((r) => r.quality));
  let alignTo: number[] | undefined;
  // A copy of the source cannot carry a watermark or a clip: those change the picture or the length.
  const copyable = e.row.environment !== "sandbox" && !e.row.watermark && !e.clip;
  if (todo.has(top.name) && copyable && isRemuxable(e.probe, top)) {
    await remuxTop(e, top);
    todo.delete(top.name);
  }
  // Right after the first playable rendition (or before the ladder when there is none): players
  // show a poster as soon as they can play, and "every rendition encoded" implies a thumbnail.
  await applyThumbnail(e, false);
  if (todo.size) {
    // Rungs encoded beside a remuxed top rung cut keyframes where the source has them, so players can switch.
    const remuxed = rows.find((r) => r.type === "hls" && r.quality === top.name && r.status === "encoded") || !todo.has(top.name);
    if (remuxed) alignTo = await keyframeTimes(e.app.media as MediaTools, e.source, e.run.signal);
    await encodeLadder(e, e.ladder.filter((r) => todo.has(r.name)), alignTo);
  }
  if (pending(rows, "mp4").length) await packageMp4(e, top);
  // A timecode picked while the ladder was encoding (the video was not playable yet).
  await applyThumbnail(e, true);
}

/**
 * Saves what ffprobe found, for the status metadata; with a clip, the duration is the clip's
 * (captions, usage and thumbnails read it too) and the clip is stored resolved to seconds.
 */
function saveProbe(app: AppContext, row: VideoRow, result: ProbeResult, clip: { startS: number; endS: number } | undefined): VideoRow {
  const changes: Partial<VideoRow> = {
    probe: JSON.stringify(clip ? { ...result, durationS: clip.endS - clip.startS } : result),
    encodingError: null,
    updatedAt: atom(app.clock.now()),
  };
  if (clip) changes.clip = JSON.stringify({ ...clipOf(row), ...clip });
  app.db.update(videos).set(changes).where(eq(videos.id, row.id)).run();
  return { ...row, ...changes };
}

/** The encode job: probe, ladder (remuxing the top rung when possible), MP4, thumbnail. */
export function encodeHandler(app: AppContext): JobHandler<{ videoId: string }> {
  return videoJobHandler(app, ENCODE_JOB, {
    fail: (videoId, reason) => failEncoding(app, videoId, reason),
    lostReason: "Encoding stopped before finishing on every attempt (the server was restarting or ran out of resources).",
    async run(row, run) {
      const videoId = row.id;
      if ("missing" in app.media) {
        failEncoding(app, videoId, app.media.missing);
        return { status: "failure", error: app.media.missing };
      }
      const source = app.storage.localPath(videoKey(row, "source"));
      return attempt(app, row, run, {
        label: "",
        clearEarlier: true,
        reason: (err) => (err instanceof MediaError ? err.reason : serverFault("Encoding")),
        // A file ffmpeg cannot read will not read better later; a full disk may have room later, and
        // anything else gets another attempt too.
        retry: (err) => !(err instanceof MediaError) || isMachineFault(err),
        retryDelayMs: (attempt, err) => (isMachineFault(err) ? MACHINE_FAULT_RETRY_MS * attempt : undefined),
        logAs: "encoding failed",
        fail(reason) {
          if (app.db.select().from(videos).where(eq(videos.id, videoId)).get()?.probe) failEncoding(app, videoId, reason);
          else failUnprobed(app, row, reason);
        },
      }, async (stage) => {
        const result = await probe(app.media as MediaTools, source, run.signal);
        if (result.durationS > MAX_DURATION_S) throw new MediaError(`The video is ${Math.round(result.durationS / 60)} minutes long; the limit is 1440 minutes.`);
        const stored = clipOf(row);
        const clip = stored ? resolveClip(stored, result) : undefined;
        const fresh = saveProbe(app, row, result, clip);
        await encode({ app, row: fresh, source, probe: result, ladder: ladderFor(result), run, clip, stage });
      });
    },
  });
}
