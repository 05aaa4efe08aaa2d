// The RTMP adapter: the only module that knows node-media-server. NMS v4 brings the RTMP protocol
// (handshake, chunking, AMF) and the fan-out of one publisher to its players (BroadcastServer);
// its NodeMediaServer class is not used, because it keeps its configuration, sessions, broadcasts
// and events in process-wide singletons, always starts an HTTP server, a JSON store under ./data,
// recording and relay services, calls process.exit(1) when its port is taken, and never reports the
// port it bound. Instead each server here is a net.Server of its own whose sockets each get an NMS
// RtmpSession, with that session's callbacks wrapped to (1) decide publishes and plays here, before
// NMS registers them, (2) put every stream path under a per-server prefix, so two servers in one
// process never share NMS's global map of broadcasts, (3) report media and the publisher's end,
// (4) replay a publish from its first frame to internal readers that join in its first seconds:
// NMS replays only the last GOP, so a reader slower to start than one GOP (a loaded machine, a
// publisher faster than real time) would lose the recording's beginning; and a reader that comes
// just after a short publish ended still gets all of it.
import { randomBytes } from "node:crypto";
import net from "node:net";
// @ts-expect-error node-media-server ships no type declarations; the shapes used are declared below.
import NmsRtmpSession from "node-media-server/src/session/rtmp_session.js";
// @ts-expect-error as above.
import NmsRtmp from "node-media-server/src/protocol/rtmp.js";
// @ts-expect-error as above.
import nmsLogger from "node-media-server/src/core/logger.js";
import type { Logger } from "../log";
import { constantTimeEqual } from "../security";

/** What the stream headers told us about a publish, at its first audio or video frame. */
export interface MediaInfo {
  /** h264, or the FLV codec id / FourCC of anything else; null without video. */
  videoCodec: "h264" | "other" | null;
  /** aac, mp3, or other (G.711, Speex, …); null without audio. */
  audioCodec: "aac" | "mp3" | "other" | null;
  /** From the broadcaster's onMetaData, 0 when not announced. */
  width: number;
  height: number;
  frameRate: number;
  /** Announced video + audio rate in kbit/s, 0 when not announced. */
  bitrateKbps: number;
}

/** Callbacks for one accepted publisher. */
export interface PublisherEvents {
  /** The first audio or video frame arrived (the codec headers before it are known). */
  media(info: MediaInfo): void;
  /** Media time of the publish so far (ms from its first frame), on every frame. */
  progress(mediaMs: number): void;
  /** The publisher is gone: closed, failed, silent too long, or disconnected by us. Called once. */
  end(): void;
}

export interface PublishRequest {
  /** The RTMP application (`s` in rtmp://host/s/KEY) and stream name (the key). */
  app: string;
  name: string;
  remoteAddress: string;
}

/** An accepted publish names its stream; `events` is asked for once the adapter has taken it (not a second publisher). */
export type PublishDecision = { accept: true; streamId: string; events: () => PublisherEvents } | { accept: false; reason: string };

export interface RtmpOptions {
  host: string;
  /** 0 picks a free port; RtmpServer.port tells which. */
  port: number;
  log: Logger;
  /** Decides each publish: an accepted one is known by streamId from then on. */
  publish(request: PublishRequest): PublishDecision;
  /** A publisher silent this long is dropped (default 15 s). */
  publishIdleMs?: number;
  /** A connection that has not started publishing or playing this long after it opened is closed (default HANDSHAKE_MS). */
  handshakeTimeoutMs?: number;
  /** An internal reader that lets this much pile up unread is dropped, so it cannot hold memory (default 16 MiB). */
  readerBacklogBytes?: number;
}

export interface RtmpServer {
  /** The port bound. */
  port: number;
  /** Where an internal reader (ffmpeg) plays stream `streamId` on loopback; refused to anyone without the token. */
  readerUrl(streamId: string): string;
  /** Whether stream `streamId` has a publisher right now. */
  isPublishing(streamId: string): boolean;
  /** Drops the publisher of `streamId` (its readers then reach the end of their input). False if there was none. */
  disconnect(streamId: string): boolean;
  /** Stops listening and drops every connection; publishers' `end` callbacks run first. */
  stop(): Promise<void>;
}

// ---- the part of node-media-server's session API this adapter uses ----
interface NmsPacket { codec_type: number; codec_id: number; flags: number; dts: number }
interface NmsBroadcast {
  publishGraceMs: number;
  subscribers: Map<string, NmsSession>;
  rtmpGopCache: Set<Buffer> | null;
  rtmpMetaData: Buffer | null;
  rtmpAudioHeader: Buffer | null;
  rtmpVideoHeader: Buffer | null;
}
interface NmsRtmp {
  streamId: number;
  respondPublish(): void;
  sendStatusMessage(sid: number, level: string, code: string, description: string): void;
}
interface NmsSession {
  socket: net.Socket;
  rtmp: NmsRtmp;
  broadcast: NmsBroadcast;
  isPublisher: boolean;
  videoWidth: number;
  videoHeight: number;
  videoFramerate: number;
  videoDatarate: number;
  audioDatarate: number;
  /** From the broadcaster's onMetaData: FLV codec ids (numbers) or FourCCs (strings); 0 when unknown. */
  videoCodec: number | string;
  audioCodec: number | string;
  run(): void;
  close(): void;
  sendBuffer(buffer: Buffer): void;
  onConnect(req: { app: string; name: string; host: string; query: Record<string, unknown> }): void;
  onPush(): void;
  onPlay(): void;
  onPacket(packet: NmsPacket): void;
  onClose(): void;
}
const RtmpSession = NmsRtmpSession as new (socket: net.Socket) => NmsSession;
const rtmpMessage = (NmsRtmp as { createMessage(packet: NmsPacket): Buffer }).createMessage;
// NMS logs every session to stdout through one shared logger; Vidhost logs what matters itself.
(nmsLogger as { level: string }).level = "error";

const FLV_AUDIO = 8;
const FLV_VIDEO = 9;
const FLV_CODEC_H264 = 7;
const FLV_CODEC_AAC = 10;
const FLV_CODEC_MP3 = 2;
const INTERNAL_APP = "internal";
/** How long, and up to how many bytes, a publish is kept from its first frame for readers that join late. */
const PREROLL_MS = 10_000;
const PREROLL_BYTES = 32 * 1024 * 1024;
/** How long a short publish that ended stays available to readers that had not joined yet. */
const LATE_READER_MS = 10_000;
const NAME = /^[A-Za-z0-9_-]{1,128}$/;
/**
 * How long a connection may take from opening to an accepted publish or play. Without it a client
 * that connects and sends nothing (or trickles bytes) holds a socket forever, and enough of them
 * exhaust the process's file descriptors. OBS and ffmpeg get there in a few round trips, far less
 * than this even on a slow link. A deadline, not an idle timeout, so trickling does not extend it.
 */
const HANDSHAKE_MS = 10_000;

interface Publisher {
  session: NmsSession;
  events: PublisherEvents;
  ended: boolean;
  /** The publish's frames as RTMP messages since its first one, while young and small enough. */
  preroll: { messages: Buffer[]; bytes: number; until: number } | null;
}

/** Starts an RTMP server on host:port; resolves once it listens (rejects if the port is taken). */
export async function startRtmpServer(opts: RtmpOptions): Promise<RtmpServer> {
  const token = randomBytes(16).toString("hex");
  // NMS keys its broadcasts by "/app/name" in one process-wide map: a prefix of this server's own keeps servers apart.
  const prefix = `v${randomBytes(6).toString("hex")}`;
  const publishers = new Map<string, Publisher>();
  /** Short publishes that just ended, whole (headers then frames), for readers that arrive late. */
  const ended = new Map<string, { messages: Buffer[]; timer: ReturnType<typeof setTimeout> }>();
  const sockets = new Set<net.Socket>();
  const idleMs = opts.publishIdleMs ?? 15_000;
  const handshakeMs = opts.handshakeTimeoutMs ?? HANDSHAKE_MS;
  const backlog = opts.readerBacklogBytes ?? 16 * 1024 * 1024;
  const readerHost = opts.host === "0.0.0.0" || opts.host === "" ? "127.0.0.1" : opts.host === "::" ? "[::1]" : opts.host.includes(":") ? `[${opts.host}]` : opts.host;

  // Vidhost's callbacks run inside NMS's socket handlers: a throw there must not reach them.
  const guarded = <T>(what: string, fn: () => T, fallback: T): T => {
    try {
      return fn();
    } catch (err) {
      opts.log.error(`live: ${what} failed`, { error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
      return fallback;
    }
  };

  const finish = (streamId: string, p: Publisher) => {
    if (p.ended) return;
    p.ended = true;
    if (publishers.get(streamId) === p) publishers.delete(streamId);
    try {
      p.events.end();
    } catch (err) {
      opts.log.error("live: publisher end handler failed", { streamId, error: String(err) });
    }
  };

  const accept = (socket: net.Socket) => {
    sockets.add(socket);
    // Cleared once a publish or a play is accepted; a refused one is cut off sooner (refuse).
    const deadline = setTimeout(() => {
      opts.log.info("live: RTMP connection closed before publishing or playing", { remote: socket.remoteAddress });
      socket.destroy();
    }, handshakeMs);
    socket.on("close", () => {
      clearTimeout(deadline);
      sockets.delete(socket);
    });
    const session = new RtmpSession(socket);
    const nms = { onConnect: session.onConnect, onPush: session.onPush, onPlay: session.onPlay, onPacket: session.onPacket, onClose: session.onClose };
    let request: { app: string; name: string; host: string; query: Record<string, unknown> } | null = null;
    let streamId: string | null = null;
    let publisher: Publisher | null = null;
    // Publish.Start is sent only once the publish is accepted (NMS sends it before asking).
    session.rtmp.respondPublish = () => {};
    let refused = false;
    const refuse = (code: string, reason: string) => {
      opts.log.info("live: RTMP refused", { reason, remote: socket.remoteAddress });
      refused = true;
      // The error status makes ffmpeg and OBS report the reason; a client that lingers is cut off.
      session.rtmp.sendStatusMessage(session.rtmp.streamId, "error", code, reason);
      socket.end();
      socket.setTimeout(2000, () => socket.destroy());
    };

    // NMS calls onConnect right before onPush or onPlay; the decision needs to know which.
    session.onConnect = (req) => {
      request = req;
    };

    session.onPush = () => {
      if (refused) return;
      if (!request) return refuse("NetStream.Publish.BadName", "no stream name");
      const req = { app: request.app, name: request.name, remoteAddress: socket.remoteAddress ?? "" };
      const decision = guarded("publish decision", () => opts.publish(req), { accept: false, reason: "internal error" } as PublishDecision);
      if (!decision.accept) return refuse("NetStream.Publish.BadName", decision.reason);
      if (publishers.has(decision.streamId)) return refuse("NetStream.Publish.BadName", "this stream already has a publisher");
      const events = guarded("publish start", decision.events, null);
      if (!events) return refuse("NetStream.Publish.Failed", "internal error");
      streamId = decision.streamId;
      nms.onConnect({ ...request, app: prefix, name: streamId });
      nms.onPush();
      // Vidhost decides reconnects itself: no NMS grace period holding the path for the same address.
      session.broadcast.publishGraceMs = 0;
      Object.getPrototypeOf(session.rtmp).respondPublish.call(session.rtmp);
      publisher = { session, events, ended: false, preroll: null };
      publishers.set(streamId, publisher);
      clearTimeout(deadline);
      socket.setTimeout(idleMs);
      socket.on("timeout", () => {
        opts.log.warn("live: publisher silent, dropped", { streamId });
        socket.destroy();
      });
    };

    session.onPlay = () => {
      if (refused) return;
      const reader = request?.query.reader;
      const ok = request && request.app === INTERNAL_APP && NAME.test(request.name) && typeof reader === "string" && constantTimeEqual(reader, token);
      if (!ok || !request) return refuse("NetStream.Play.Failed", "playing is not offered here");
      // An internal reader (the ingest's ffmpeg) reads as long as the publish lasts; the backlog bound below guards it instead.
      clearTimeout(deadline);
      if (!publishers.has(request.name)) {
        // After its publisher left, a reader would wait forever: it gets the short publish that just
        // ended, if any, and then the end of its input.
        const late = ended.get(request.name);
        if (!late) return refuse("NetStream.Play.StreamNotFound", "the stream has no publisher");
        for (const message of late.messages) session.sendBuffer(message);
        socket.end();
        return;
      }
      streamId = request.name;
      nms.onConnect({ ...request, app: prefix, name: streamId, query: {} });
      // While the publish is young, the reader gets it from its first frame instead of NMS's last GOP.
      const preroll = publishers.get(streamId)?.preroll;
      const broadcast = session.broadcast;
      const gop = broadcast.rtmpGopCache;
      if (preroll) broadcast.rtmpGopCache = new Set(preroll.messages);
      try {
        nms.onPlay();
      } finally {
        if (preroll) broadcast.rtmpGopCache = gop;
      }
      // A reader that stops reading must not make this process hold everything sent to it.
      const send = session.sendBuffer;
      session.sendBuffer = (buffer) => {
        if (socket.writableLength > backlog) {
          opts.log.warn("live: internal reader fell behind, dropped", { streamId });
          socket.destroy();
          return;
        }
        send(buffer);
      };
    };

    let firstDts: number | null = null;
    let video: MediaInfo["videoCodec"] = null;
    let audio: MediaInfo["audioCodec"] = null;
    session.onPacket = (packet) => {
      if (!publisher || publisher.ended) return;
      nms.onPacket(packet);
      if (packet.codec_type === FLV_VIDEO) video ??= packet.codec_id === FLV_CODEC_H264 ? "h264" : "other";
      if (packet.codec_type === FLV_AUDIO) audio ??= packet.codec_id === FLV_CODEC_AAC ? "aac" : packet.codec_id === FLV_CODEC_MP3 ? "mp3" : "other";
      // flags 1/3/4: audio frame, video keyframe, video frame (0/2: codec headers, 5: metadata).
      if (packet.flags !== 1 && packet.flags !== 3 && packet.flags !== 4) return;
      const now = Date.now();
      if (firstDts === null) publisher.preroll = { messages: [], bytes: 0, until: now + PREROLL_MS };
      const preroll = publisher.preroll;
      if (preroll) {
        const message = rtmpMessage(packet);
        preroll.messages.push(message);
        preroll.bytes += message.byteLength;
        if (now > preroll.until || preroll.bytes > PREROLL_BYTES) publisher.preroll = null;
      }
      if (firstDts === null) {
        firstDts = packet.dts;
        const s = publisher.session;
        // A kind not seen yet (G.711 has no header packet and may come after the first video
        // frame) is taken from what onMetaData announced.
        if (video === null && s.videoCodec) video = s.videoCodec === FLV_CODEC_H264 || s.videoCodec === "avc1" ? "h264" : "other";
        if (audio === null && s.audioCodec) audio = s.audioCodec === FLV_CODEC_AAC || s.audioCodec === "mp4a" ? "aac" : s.audioCodec === FLV_CODEC_MP3 || s.audioCodec === ".mp3" ? "mp3" : "other";
        const events = publisher.events;
        const info: MediaInfo = {
          videoCodec: video, audioCodec: audio, width: s.videoWidth || 0, height: s.videoHeight || 0, frameRate: s.videoFramerate || 0,
          bitrateKbps: Math.round((s.videoDatarate || 0) + (s.audioDatarate || 0)),
        };
        const started = guarded("media start", () => (events.media(info), true), false);
        // Nothing records this publish (its broadcast could not be written, e.g. on a full disk):
        // cut the broadcaster off, so its software says so and retries, instead of streaming into nothing.
        if (!started) socket.destroy();
      }
      const events = publisher.events;
      const mediaMs = packet.dts - firstDts;
      if (!publisher.ended) guarded("media progress", () => events.progress(mediaMs), undefined);
    };

    session.onClose = () => {
      const readers = publisher ? [...session.broadcast.subscribers.values()] : [];
      if (publisher?.preroll && streamId) {
        const b = session.broadcast;
        const id = streamId;
        const messages = [b.rtmpMetaData, b.rtmpAudioHeader, b.rtmpVideoHeader, ...publisher.preroll.messages].filter((m): m is Buffer => m !== null);
        clearTimeout(ended.get(id)?.timer);
        const timer = setTimeout(() => ended.delete(id), LATE_READER_MS);
        timer.unref?.();
        ended.set(id, { messages, timer });
      }
      nms.onClose();
      if (publisher && streamId) {
        publisher.preroll = null;
        finish(streamId, publisher);
        // The readers see the end of their input, then finish their files and exit.
        for (const reader of readers) reader.close();
      }
    };
    session.run();
  };

  const server = net.createServer(accept);
  await new Promise<void>((resolve, reject) => {
    server.once("error", (err: NodeJS.ErrnoException) =>
      reject(new Error(err.code === "EADDRINUSE" ? `the RTMP port ${opts.host}:${opts.port} is already in use (VIDHOST_RTMP_PORT)` : `RTMP server: ${err.message}`)));
    server.listen(opts.port, opts.host, () => resolve());
  });
  server.on("error", (err) => opts.log.error("live: RTMP server error", { error: String(err) }));
  const port = (server.address() as net.AddressInfo).port;

  return {
    port,
    readerUrl: (streamId) => `rtmp://${readerHost}:${port}/${INTERNAL_APP}/${streamId}?reader=${token}`,
    isPublishing: (streamId) => publishers.has(streamId),
    disconnect(streamId) {
      const p = publishers.get(streamId);
      if (!p) return false;
      p.session.socket.destroy();
      return true;
    },
    async stop() {
      for (const late of ended.values()) clearTimeout(late.timer);
      ended.clear();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const [streamId, p] of publishers) {
        p.session.socket.destroy();
        finish(streamId, p);
      }
      for (const socket of sockets) socket.end();
      // Readers normally close their side at once; whatever lingers is cut after a grace period.
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([closed, new Promise<void>((resolve) => (timer = setTimeout(resolve, 5000)))]);
      clearTimeout(timer);
      for (const socket of sockets) socket.destroy();
    },
  };
}
