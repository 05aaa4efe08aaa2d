// The live runtime, built by the composition root: it owns the RTMP server and, per publisher,
// the ingest ffmpeg (live HLS + recording + picture) and the restream relays. Nothing here lives
// at module level, so two appliances can run in one process.
import { and, desc, eq, inArray, ne } from "drizzle-orm";
import { projectRefusal } from "../auth/project-state";
import type { Environment } from "../config";
import type { AppContext } from "../context";
import { liveBroadcasts, liveStreams } from "../db/schema";
import { SANDBOX_LIMIT_S } from "../encoding/sandbox";
import { liveIngestArgs, nextSegmentNumber, restreamArgs, restreamUrl, type LiveRung } from "../media/args-live";
import { runFfmpeg } from "../media/ffmpeg";
import { ladderFor } from "../media/ladder";
import type { MediaTools } from "../media/tools";
import { hlsKey, liveKey, piecesKey, type BroadcastRow, type LiveStreamRow, type Restream } from "./body";
import { addPiece, endPublish, recoverBroadcasts, requestCompletion, setRenditions, startPublish } from "./broadcasts";
import { startRtmpServer, type MediaInfo, type PublishDecision, type PublisherEvents, type PublishRequest, type RtmpServer } from "./rtmp";

/** Playlist entries kept in the live window (6 × 1–2 s segments). */
const LIVE_WINDOW = 6;
/** How often the live picture (the live stream's thumbnail) is refreshed. */
const PICTURE_EVERY_S = 5;
const PICTURE_WIDTH = 640;
/** How long a stop waits for writers to flush before killing them. */
const STOP_GRACE_MS = 10_000;

export interface LiveRendition {
  name: string;
  width: number;
  height: number;
  /** Peak bits/s, for the master playlist. */
  bandwidth: number;
}

/** ffmpeg's playlist dates (2026-11-22T02:42:28.270+0000) as epoch ms. */
export const parseDate = (text: string): number => Date.parse(text.trim().replace(/([+-]\d\d)(\d\d)$/, "$1:$2"));

/** Ends the broadcast of a live stream now; used by the API (complete, delete). */
export interface LiveControl {
  complete(stream: Pick<LiveStreamRow, "id">): void;
  idle(broadcastId: string, signal?: AbortSignal): Promise<void>;
}

export class LiveRuntime implements LiveControl {
  private app: AppContext | null = null;
  private rtmp: RtmpServer | null = null;
  /** Running ingest loops per broadcast: the finish job waits for them (idle). */
  private readonly writers = new Map<string, Set<Promise<void>>>();
  /** Per broadcast, the ingest runs that started at a publish's first frame: first segment number, that frame's arrival, and the date correction once measured. */
  private readonly runs = new Map<string, { from: number; firstFrameAt: number; shiftMs?: number }[]>();
  private readonly publishes = new Set<Publish>();
  private stopping = false;

  /** The RTMP port bound (after start). */
  get port(): number {
    return this.rtmp?.port ?? 0;
  }

  /** Repairs what the last process left (broadcasts it was serving), then listens for RTMP. */
  async start(app: AppContext): Promise<number> {
    this.app = app;
    recoverBroadcasts(app);
    this.rtmp = await startRtmpServer({ host: app.config.host, port: app.config.rtmpPort, log: app.log, publish: (r) => this.decide(r) });
    return this.rtmp.port;
  }

  /** Ends publishes (each leaves as if it disconnected: `ended`, reconnect window, finish job), waits for the recordings to be flushed. */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.rtmp?.stop();
    const writing = [...this.writers.values()].flatMap((s) => [...s]);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const flushed = await Promise.race([
      Promise.allSettled(writing).then(() => true),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), STOP_GRACE_MS))),
    ]);
    clearTimeout(timer);
    for (const p of this.publishes) p.kill();
    if (!flushed) {
      this.app?.log.warn("live: writers did not finish in time and were killed");
      await Promise.allSettled(writing);
    }
  }

  complete(stream: Pick<LiveStreamRow, "id">): void {
    if (!this.app) return;
    requestCompletion(this.app, stream.id);
    this.rtmp?.disconnect(stream.id);
  }

  /**
   * Completes every broadcast in progress in a project's environment, as if each were completed
   * through the API (its recording becomes a video): called when production is switched off, so a
   * production broadcast does not outlive the keys and tokens that were just refused, and when a
   * project is deleted. Returns the broadcasts' ids (`idle` tells when their writers have stopped).
   */
  completeAll(projectId: string, environment: Environment): string[] {
    if (!this.app) return [];
    const open = this.app.db.select({ id: liveBroadcasts.id, liveStreamId: liveBroadcasts.liveStreamId }).from(liveBroadcasts)
      .where(and(eq(liveBroadcasts.projectId, projectId), eq(liveBroadcasts.environment, environment), inArray(liveBroadcasts.state, ["live", "reconnecting"])))
      .all();
    for (const liveStreamId of new Set(open.map((b) => b.liveStreamId))) this.complete({ id: liveStreamId });
    return open.map((b) => b.id);
  }

  async idle(broadcastId: string, signal?: AbortSignal): Promise<void> {
    for (;;) {
      signal?.throwIfAborted();
      const running = this.writers.get(broadcastId);
      if (!running?.size) return;
      await Promise.race([
        Promise.allSettled([...running]),
        new Promise((resolve) => signal?.addEventListener("abort", resolve, { once: true })),
      ]);
    }
  }

  /**
   * How far EXT-X-PROGRAM-DATE-TIME of segment `segment` of a broadcast must move to tell when its
   * first frame arrived: ffmpeg dates a run's segments from its own start, a fraction of a second
   * after the frame its first segment starts with. Measured on the first `playlist` that still
   * lists the run's first segment (its date against that frame's arrival), then remembered.
   */
  pdtShift(broadcastId: string, segment: number, playlist: string): number {
    const run = (this.runs.get(broadcastId) ?? []).filter((r) => r.from <= segment).at(-1);
    if (!run) return 0;
    if (run.shiftMs === undefined) {
      const first = `seg_${String(run.from).padStart(5, "0")}.ts`;
      const lines = playlist.split("\n");
      const at = lines.indexOf(first);
      const date = at > 0 && lines[at - 1].startsWith("#EXT-X-PROGRAM-DATE-TIME:") ? parseDate(lines[at - 1].slice(25)) : NaN;
      if (!Number.isFinite(date)) return 0;
      run.shiftMs = run.firstFrameAt - date;
    }
    return run.shiftMs;
  }

  /** Notes an ingest run of a broadcast whose first segment (number `from`) starts with a frame that arrived at `firstFrameAt`. */
  noteRun(broadcastId: string, from: number, firstFrameAt: number): void {
    const list = (this.runs.get(broadcastId) ?? []).filter((r) => r.from < from);
    this.runs.set(broadcastId, [...list, { from, firstFrameAt }]);
  }

  /** Forgets what a broadcast's live HLS needed in memory, once that HLS is deleted. */
  release(broadcastId: string): void {
    this.runs.delete(broadcastId);
  }

  /** Whether an ingest of this broadcast still runs. */
  isWriting(broadcastId: string): boolean {
    return (this.writers.get(broadcastId)?.size ?? 0) > 0;
  }

  /** The RTMP server this runtime listens with (after start). */
  get server(): RtmpServer {
    if (!this.rtmp) throw new Error("the live runtime is not started");
    return this.rtmp;
  }

  /** Tracks `work` as writing broadcast `broadcastId` until it settles. */
  track(broadcastId: string, work: Promise<void>): void {
    const set = this.writers.get(broadcastId) ?? new Set();
    this.writers.set(broadcastId, set);
    set.add(work);
    const forget = () => {
      set.delete(work);
      if (!set.size && this.writers.get(broadcastId) === set) this.writers.delete(broadcastId);
    };
    // A writer that fails (its database write refused on a full disk) is logged, not rethrown: an
    // unhandled rejection would end the process, and every other upload, encode and broadcast with it.
    work.then(forget, (err) => {
      this.app?.log.error("live: a broadcast's writer failed", { broadcastId, error: err instanceof Error ? err.message : String(err) });
      forget();
    });
  }

  forget(p: Publish): void {
    this.publishes.delete(p);
  }

  // The stream key alone picks project, environment and live stream.
  private decide(r: PublishRequest): PublishDecision {
    const app = this.app!;
    if (this.stopping) return { accept: false, reason: "the server is stopping" };
    if (r.app !== "s") return { accept: false, reason: `unknown application "${r.app}": publish to rtmp://host:port/s/{streamKey}` };
    if ("missing" in app.media) return { accept: false, reason: "live streaming is unavailable: ffmpeg is missing" };
    const stream = app.db.select().from(liveStreams).where(eq(liveStreams.streamKey, r.name)).get();
    if (!stream) return { accept: false, reason: "unknown stream key" };
    // The rule API keys follow: a deleted project, or production switched off, refuses the key as
    // if it were unknown (the publisher learns nothing about the project; the log says why).
    const why = projectRefusal(app, stream.projectId, stream.environment);
    if (why) {
      app.log.info("live: publish refused", { liveStreamId: stream.id, reason: why });
      return { accept: false, reason: "unknown stream key" };
    }
    return {
      accept: true,
      streamId: stream.id,
      events: () => {
        const publish = new Publish(this, app, stream);
        this.publishes.add(publish);
        app.log.info("live: publisher connected", { liveStreamId: stream.id, remote: r.remoteAddress });
        return publish;
      },
    };
  }
}

/** One accepted publisher: its broadcast part, its ingest and its relays. */
class Publish implements PublisherEvents {
  private broadcast: BroadcastRow | null = null;
  /** When this publish's first frame arrived (its first ingest run starts there, see the adapter's pre-roll). */
  private firstFrameAt = 0;
  private ended = false;
  private mediaMs = 0;
  private cut = false;
  private readonly abort = new AbortController();
  private readonly wakers = new Set<() => void>();
  /** The ingest and relays: the runtime keeps this publish (for a stop's kill) until they settle. */
  private readonly work: Promise<void>[] = [];
  private readonly tools: MediaTools;

  constructor(private readonly runtime: LiveRuntime, private readonly app: AppContext, private readonly stream: LiveStreamRow) {
    this.tools = app.media as MediaTools;
  }

  media(info: MediaInfo): void {
    if (this.ended) return;
    this.firstFrameAt = Date.now();
    const { broadcast, resumed } = startPublish(this.app, this.stream);
    this.broadcast = broadcast;
    this.app.log.info(resumed ? "live: broadcast resumed" : "live: broadcast started", { liveStreamId: this.stream.id, broadcastId: broadcast.id, part: broadcast.part, ...info });
    const ingest = this.ingest(broadcast, info, resumed);
    this.work.push(ingest);
    this.runtime.track(broadcast.id, ingest);
    // Restreams are read at each publish: edits apply from the next one (as api.video's do).
    const fresh = this.app.db.select({ restreams: liveStreams.restreams }).from(liveStreams).where(eq(liveStreams.id, this.stream.id)).get();
    for (const r of JSON.parse(fresh?.restreams ?? "[]") as Restream[]) this.work.push(this.relay(r));
  }

  progress(mediaMs: number): void {
    this.mediaMs = mediaMs;
    if (this.cut || this.stream.environment !== "sandbox" || !this.broadcast) return;
    if (this.broadcast.recordedMs + mediaMs >= SANDBOX_LIMIT_S * 1000) {
      this.cut = true;
      this.app.log.info("live: sandbox broadcast cut at 30 s", { liveStreamId: this.stream.id });
      this.runtime.complete(this.stream);
    }
  }

  end(): void {
    this.ended = true;
    for (const wake of this.wakers) wake();
    if (this.broadcast) endPublish(this.app, this.broadcast.id, this.mediaMs);
    // Its writer still flushes the recording after the publisher left: a stop may have to kill it.
    void Promise.allSettled(this.work).then(() => this.runtime.forget(this));
    this.app.log.info("live: publisher left", { liveStreamId: this.stream.id, mediaS: Math.round(this.mediaMs / 100) / 10 });
  }

  /** Kills whatever still runs (a stop whose grace period passed). */
  kill(): void {
    this.ended = true;
    for (const wake of this.wakers) wake();
    this.abort.abort();
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.wakers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.wakers.add(wake);
    });
  }

  /** The live renditions: the source (copied), then configured rungs below its size (transcoded). */
  private renditions(b: BroadcastRow, info: MediaInfo, resumed: boolean): { list: LiveRendition[]; rungs: LiveRung[] } {
    const stored = JSON.parse(b.renditions) as LiveRendition[];
    const ladder = info.width && info.height ? ladderFor({ width: info.width, height: info.height, frameRate: info.frameRate }) : [];
    let rungs = ladder.filter((r) => this.app.config.liveLadder.includes(r.name) && Math.min(r.width, r.height) < Math.min(info.width, info.height));
    // A reconnect keeps the broadcast's renditions, so players keep their playlists.
    if (resumed && stored.length) rungs = rungs.filter((r) => stored.some((s) => s.name === r.name));
    const source: LiveRendition = { name: "source", width: info.width, height: info.height, bandwidth: Math.round((info.bitrateKbps || 6000) * 1000 * 1.2) };
    const list = [source, ...rungs.map((r) => ({ name: r.name, width: r.width, height: r.height, bandwidth: Math.round((r.maxrateKbps + r.audioKbps) * 1000 * 1.08) }))];
    return { list, rungs };
  }

  /** The ingest: one ffmpeg run per recording piece, restarted if it stops while the publisher still sends. */
  private async ingest(b: BroadcastRow, info: MediaInfo, resumed: boolean): Promise<void> {
    const { list, rungs } = this.renditions(b, info, resumed);
    if (!resumed) {
      setRenditions(this.app, b.id, list);
      await this.dropOldPlaylists(b);
    }
    let delayMs = 1000;
    // The first run starts even if the publisher already left: the adapter hands a reader that
    // comes late the whole of a short publish. Later runs only replace one that stopped early.
    for (let run = 0; run === 0 || !this.ended; run++) {
      const limitS = this.stream.environment === "sandbox" ? SANDBOX_LIMIT_S - (b.recordedMs + this.mediaMs) / 1000 : undefined;
      if (limitS !== undefined && limitS <= 0) return;
      // MPEG-TS keeps H.264 with AAC or MP3 whatever happens to the writer; Matroska keeps anything else.
      const format = info.videoCodec === "h264" && (info.audioCodec === "aac" || info.audioCodec === "mp3" || info.audioCodec === null) ? "mpegts" : "matroska";
      const piece = addPiece(this.app, b.id, format === "mpegts" ? "ts" : "mkv");
      const playlist = (await this.app.storage.get(hlsKey(b, "source", "index.m3u8"))?.text()) ?? null;
      const startNumber = nextSegmentNumber(playlist);
      const args = liveIngestArgs(this.runtime.server.readerUrl(this.stream.id), {
        video: info.videoCodec === "h264" ? "copy" : "encode",
        // Players take AAC everywhere; MP3 and the rest are made AAC for the live HLS only.
        audio: info.audioCodec === null ? "none" : info.audioCodec === "aac" ? "copy" : "encode",
        hlsDir: this.app.storage.localDir(hlsKey(b)),
        segmentS: this.app.config.liveSegmentS,
        listSize: LIVE_WINDOW,
        startNumber,
        discontinuity: startNumber > 0,
        rungs,
        frameRate: info.frameRate,
        recording: { file: this.app.storage.localPath(piecesKey(b, piece), true), format, limitS },
        picture: { file: this.app.storage.localPath(liveKey(this.stream, "picture.jpg"), true), everyS: PICTURE_EVERY_S, width: PICTURE_WIDTH },
      });
      const started = Date.now();
      // Only a publish's first run starts at its first frame; a restarted one starts at a later keyframe.
      if (run === 0) this.runtime.noteRun(b.id, startNumber, this.firstFrameAt);
      try {
        await runFfmpeg(this.tools, args, { signal: this.abort.signal, stallMs: null }); // waits on its publisher
      } catch (err) {
        if (!this.ended) this.app.log.warn("live: ingest stopped while the publisher is still sending", { liveStreamId: this.stream.id, error: String(err) });
      }
      if (this.ended || this.cut) return;
      // Restarted as a new piece; a crash loop backs off.
      if (Date.now() - started > 30_000) delayMs = 1000;
      await this.sleep(delayMs);
      delayMs = Math.min(delayMs * 2, 10_000);
    }
  }

  /** A new broadcast replaces the stream's earlier live HLS (kept until now for late viewers). */
  private async dropOldPlaylists(b: BroadcastRow): Promise<void> {
    const earlier = this.app.db.select().from(liveBroadcasts)
      .where(and(eq(liveBroadcasts.liveStreamId, b.liveStreamId), ne(liveBroadcasts.id, b.id)))
      .orderBy(desc(liveBroadcasts.startedAt)).limit(5).all();
    for (const e of earlier) {
      if (this.runtime.isWriting(e.id)) continue;
      await this.app.storage.delete(hlsKey(e));
      this.runtime.release(e.id);
    }
  }

  /** One restream destination: a stream-copy relay, retried with back-off; it never touches the main ingest. */
  private async relay(r: Restream): Promise<void> {
    const destination = restreamUrl(r.serverUrl, r.streamKey);
    const where = { liveStreamId: this.stream.id, restream: r.name, server: new URL(r.serverUrl).host };
    let delayMs = 1000;
    while (!this.ended) {
      const started = Date.now();
      try {
        await runFfmpeg(this.tools, restreamArgs(this.runtime.server.readerUrl(this.stream.id), destination), { signal: this.abort.signal, stallMs: null }); // -rw_timeout bounds it
      } catch (err) {
        if (!this.ended) this.app.log.warn("live: restream failed, retrying", { ...where, inMs: delayMs, error: String(err) });
      }
      if (this.ended) return;
      if (Date.now() - started > 30_000) delayMs = 1000;
      await this.sleep(delayMs);
      delayMs = Math.min(delayMs * 2, 30_000);
    }
  }
}
