// Helpers shared by the upload end-to-end suites: where a source lands, hashes, part files, raw
// multipart bodies and the encode jobs an upload queues.
import { createHash, randomBytes } from "node:crypto";
import { existsSync, openSync, readdirSync, readSync, closeSync, statSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { and, eq, sql } from "drizzle-orm";
import { jobs } from "../../src/db/schema";
import { ENCODE_JOB } from "../../src/videos/service";
import { basic, type TestAppliance } from "../helpers";

export const MiB = 1024 * 1024;

/** The stored source of a video, as the storage module lays it out. */
export function sourcePath(app: TestAppliance, projectId: string, environment: string, videoId: string): string {
  return join(app.dataDir, "media", projectId, environment, "videos", videoId, "source");
}

/** The folder holding everything of one video. */
export function videoDir(app: TestAppliance, projectId: string, environment: string, videoId: string): string {
  return join(app.dataDir, "media", projectId, environment, "videos", videoId);
}

/** Files currently in the temp-upload folder. */
export function tempFiles(app: TestAppliance): string[] {
  const dir = join(app.dataDir, "media", ".tmp");
  return existsSync(dir) ? readdirSync(dir) : [];
}

/** The partial source a progressive upload writes its in-order chunks into (absent before the first one, and once complete). */
export function partialPath(app: TestAppliance, projectId: string, environment: string, videoId: string): string {
  return join(videoDir(app, projectId, environment, videoId), "chunks", "partial");
}

/** Size of a file, or null when it does not exist. */
export function fileSize(path: string): number | null {
  return existsSync(path) ? statSync(path).size : null;
}

/** SHA-256 of a file, streamed. */
export async function sha256File(path: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of Bun.file(path).stream()) hash.update(chunk);
  return hash.digest("hex");
}

/** Writes the byte ranges `[from, to)` of `file` as separate files named `<prefix>-<i>.mp4` beside it (part files for progressive sessions). */
export function splitFile(file: string, dir: string, cuts: number[], prefix = "part"): string[] {
  const size = Bun.file(file).size;
  const edges = [0, ...cuts, size];
  const fd = openSync(file, "r");
  try {
    return edges.slice(1).map((end, i) => {
      const start = edges[i];
      const buf = Buffer.alloc(end - start);
      readSync(fd, buf, 0, buf.length, start);
      const out = join(dir, `${prefix}-${i + 1}.mp4`);
      writeFileSync(out, buf);
      return out;
    });
  } finally {
    closeSync(fd);
  }
}

/** Encode jobs queued (or run) for a video. */
export function encodeJobs(app: TestAppliance, videoId: string) {
  return app.ctx.db.select().from(jobs)
    .where(and(eq(jobs.kind, ENCODE_JOB), sql`json_extract(${jobs.payload}, '$.videoId') = ${videoId}`)).all();
}

/** `{ingest, encoding}` of GET /videos/{id}/status over raw HTTP. */
export async function statusOf(app: TestAppliance, key: string, videoId: string) {
  const res = await app.api(key, "GET", `/videos/${videoId}/status`);
  if (res.status !== 200) throw new Error(`status of ${videoId}: ${res.status} ${await res.text()}`);
  return (await res.json()) as {
    ingest: { status: string | null; filesize: number | null; receivedBytes: { from: number; to: number; total: number | null }[]; receivedParts: { parts: number[]; total: number | null } };
    encoding: { playable: boolean; qualities: unknown[] };
  };
}

/** Asserts-free check used by every upload test: the stored source equals `file` byte for byte. */
export async function storedMatches(app: TestAppliance, projectId: string, environment: string, videoId: string, file: string): Promise<boolean> {
  const stored = sourcePath(app, projectId, environment, videoId);
  return existsSync(stored) && (await sha256File(stored)) === (await sha256File(file));
}

/** Random bytes of a given size (for synthetic chunks). */
export const noise = (size: number) => new Uint8Array(randomBytes(size));

/** A multipart form with one file part (or none, or several). */
export function form(files: { name?: string; filename?: string; bytes: Uint8Array }[], fields: Record<string, string> = {}): FormData {
  const body = new FormData();
  for (const [k, v] of Object.entries(fields)) body.append(k, v);
  for (const f of files) body.append(f.name ?? "file", new Blob([f.bytes as Uint8Array<ArrayBuffer>]), f.filename ?? "chunk.mp4");
  return body;
}

/** POSTs a multipart chunk to a video's source (or to /upload?token= when `path` says so). */
export async function postChunk(
  app: TestAppliance,
  key: string,
  path: string,
  body: FormData | ReadableStream<Uint8Array>,
  contentRange?: string,
  extraHeaders: Record<string, string> = {},
): Promise<Response> {
  const headers: Record<string, string> = { authorization: basic(key), ...extraHeaders };
  if (contentRange !== undefined) headers["content-range"] = contentRange;
  return fetch(app.urls.sandbox + path, { method: "POST", headers, body });
}

export const fileName = (p: string) => basename(p);

/** Rate limits high enough that a test's burst of requests is never 429 (the limiter is tested elsewhere). */
export const UNLIMITED = {
  VIDHOST_RATE_LIMITS: ["sandbox", "production"].flatMap((env) => ["uploads", "writes", "reads"].map((c) => `${env}.${c}=1000000`)).join(","),
};
