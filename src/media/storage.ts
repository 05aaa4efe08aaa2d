import { randomUUID } from "node:crypto";
import { closeSync, constants, ftruncateSync, mkdirSync, openSync, readdirSync, renameSync, rmSync, statSync, writeSync } from "node:fs";
import { rename, rm } from "node:fs/promises";
import { dirname, join, resolve, sep } from "node:path";

/**
 * Where media lives. Keys are lists of safe segments (ids, fixed names); this module alone turns
 * them into paths, so no user input ever reaches the file system unchecked. Local files now; the
 * interface is what an S3-compatible store would implement later.
 */
export interface Storage {
  /** Streams `body` into `key` atomically (temp file, then rename); returns the byte count. */
  put(key: StorageKey, body: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array> | Blob | Uint8Array | string): Promise<number>;
  /** The stored object as a lazy Blob (supports `slice` for Range requests), or null. */
  get(key: StorageKey): Blob | null;
  /** Size of an object, or null when absent. */
  size(key: StorageKey): number | null;
  /** Deletes one object or everything below a prefix. */
  delete(key: StorageKey): Promise<void>;
  /** A local path for tools that need files (ffmpeg). Creates parent directories when `forWriting`. */
  localPath(key: StorageKey, forWriting?: boolean): string;
  /** A local directory for tools that write many files (ffmpeg's HLS muxer); created if missing. */
  localDir(key: StorageKey): string;
  /** A temporary file being written; `commit` moves it under `key`, `discard` removes it. */
  tempFile(): TempFile;
  /** The names under `key` (the media root when empty) that are keys themselves; [] when there is no such folder. */
  children(key: StorageKey): string[];
  /** Moves one object to another key (a rename, so synchronous: callers may rely on nothing running in between). */
  move(from: StorageKey, to: StorageKey): void;
  /**
   * Positional writes into `key` (created if missing) by one holder at a time: null while another
   * holds it, unless `takeOver`, which stops that holder (its later writes throw).
   */
  openExclusive(key: StorageKey, takeOver?: boolean): ExclusiveFile | null;
}

/** An object held for positional writes (see Storage.openExclusive). Synchronous, so a take-over stops the old holder at once. */
export interface ExclusiveFile {
  /** Writes all of `bytes` at `position`; throws once another holder took the object over. */
  write(bytes: Uint8Array, position: number): void;
  /** Sets the object's size, cutting off what lies beyond (throws once taken over). */
  truncate(size: number): void;
  /** True once another holder took the object over. */
  readonly takenOver: boolean;
  /** Moves the object to `key` (throws once taken over); the handle stays usable until closed. */
  commitSync(key: StorageKey): void;
  /** Closes the object and lets another holder have it; safe to call twice. */
  close(): void;
}

export type StorageKey = readonly string[];

export interface TempFile {
  write(chunk: Uint8Array): Promise<void>;
  end(): Promise<void>;
  abort(): Promise<void>;
  /** Bytes written so far. */
  readonly size: number;
  commit(key: StorageKey): Promise<void>;
  /** The bytes written so far, readable lazily (e.g. to sniff a file type). */
  blob(): Blob;
  /** The same, synchronously: usable inside a database transaction. */
  commitSync(key: StorageKey): void;
  /** Where the file is, for tools that must read it before it is committed (ffprobe checking an import). */
  readonly localPath: string;
}

const SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** Media files under `{dataDir}/media`, one folder per project and environment. */
export function localStorage(dataDir: string): Storage {
  const root = resolve(dataDir, "media");
  const tmp = join(root, ".tmp");
  mkdirSync(tmp, { recursive: true });

  const pathOf = (key: StorageKey): string => {
    if (!key.length || !key.every((s) => SEGMENT.test(s) && !s.includes(".."))) {
      throw new Error(`invalid storage key ${JSON.stringify(key)}`);
    }
    const path = join(root, ...key);
    if (!path.startsWith(root + sep)) throw new Error("storage key escapes the media root");
    return path;
  };

  const tempFile = (): TempFile => {
    const path = join(tmp, randomUUID());
    // Bun's FileSink writes about a third faster than node's FileHandle (bench/upload.ts); flushing
    // every few MiB keeps what it buffers, and so the server's memory, small whatever the upload size.
    const sink = Bun.file(path).writer({ highWaterMark: 1024 * 1024 });
    let size = 0;
    let unflushed = 0;
    let ended = false;
    const close = async () => {
      if (ended) return;
      ended = true;
      await sink.end();
    };
    return {
      localPath: path,
      get size() {
        return size;
      },
      async write(chunk) {
        await sinkWrite(sink, chunk);
        size += chunk.byteLength;
        unflushed += chunk.byteLength;
        if (unflushed >= 4 * 1024 * 1024) {
          unflushed = 0;
          await sink.flush();
        }
      },
      end: close,
      async abort() {
        await close().catch(() => {});
        await rm(path, { force: true });
      },
      async commit(key) {
        const target = pathOf(key);
        mkdirSync(dirname(target), { recursive: true });
        await rename(path, target);
      },
      blob() {
        return Bun.file(path);
      },
      commitSync(key) {
        const target = pathOf(key);
        mkdirSync(dirname(target), { recursive: true });
        renameSync(path, target);
      },
    };
  };

  // Open exclusive files by path: the one place that knows who holds what.
  const holders = new Map<string, { stop(): void }>();
  const openExclusive = (key: StorageKey, takeOver = false): ExclusiveFile | null => {
    const path = pathOf(key);
    const holder = holders.get(path);
    if (holder && !takeOver) return null;
    holder?.stop();
    mkdirSync(dirname(path), { recursive: true });
    // Read-write, created if missing, never truncated: what was committed before stays.
    let handle: number | null = openSync(path, constants.O_RDWR | constants.O_CREAT, 0o644);
    let takenOver = false;
    let current = path;
    const self = {
      stop() {
        takenOver = true;
      },
    };
    holders.set(path, self);
    const live = () => {
      if (takenOver) throw new Error(`${current} was taken over by another writer`);
      if (handle === null) throw new Error(`${current} is closed`);
      return handle;
    };
    return {
      write(bytes, position) {
        const fd = live();
        for (let done = 0; done < bytes.byteLength;) done += writeSync(fd, bytes, done, bytes.byteLength - done, position + done);
      },
      truncate(size) {
        ftruncateSync(live(), size);
      },
      get takenOver() {
        return takenOver;
      },
      commitSync(to) {
        live();
        const target = pathOf(to);
        mkdirSync(dirname(target), { recursive: true });
        renameSync(current, target);
        if (holders.get(current) === self) holders.delete(current);
        current = target;
      },
      close() {
        if (handle !== null) closeSync(handle);
        handle = null;
        if (holders.get(current) === self) holders.delete(current);
      },
    };
  };

  return {
    async put(key, body) {
      const temp = tempFile();
      try {
        // Blobs (Bun.file included) are streamed too, so a large file never sits in memory.
        const source = body instanceof Blob ? body.stream() : body;
        if (source instanceof ReadableStream || Symbol.asyncIterator in Object(source)) {
          for await (const chunk of source as AsyncIterable<Uint8Array>) await temp.write(chunk);
        } else {
          await temp.write(typeof source === "string" ? new TextEncoder().encode(source) : (source as Uint8Array));
        }
        await temp.end();
        await temp.commit(key);
        return temp.size;
      } catch (err) {
        await temp.abort();
        throw err;
      }
    },
    get(key) {
      const path = pathOf(key);
      try {
        if (!statSync(path).isFile()) return null;
      } catch {
        return null;
      }
      return Bun.file(path);
    },
    size(key) {
      try {
        const st = statSync(pathOf(key));
        return st.isFile() ? st.size : null;
      } catch {
        return null;
      }
    },
    async delete(key) {
      await rm(pathOf(key), { recursive: true, force: true });
    },
    localPath(key, forWriting = false) {
      const path = pathOf(key);
      if (forWriting) mkdirSync(dirname(path), { recursive: true });
      return path;
    },
    localDir(key) {
      const path = pathOf(key);
      mkdirSync(path, { recursive: true });
      return path;
    },
    tempFile,
    children(key) {
      try {
        return readdirSync(key.length ? pathOf(key) : root).filter((name) => SEGMENT.test(name) && !name.includes(".."));
      } catch {
        return [];
      }
    },
    move(from, to) {
      const target = pathOf(to);
      mkdirSync(dirname(target), { recursive: true });
      renameSync(pathOf(from), target);
    },
    openExclusive,
  };
}

/**
 * Writes to a FileSink and waits when the sink makes the write wait: past its buffer, `write`
 * returns a promise, and a failure (a full disk) rejects that promise. Left unawaited, that
 * rejection has no handler and Bun ends the whole process.
 */
export async function sinkWrite(sink: Bun.FileSink, chunk: Uint8Array): Promise<void> {
  const pending = sink.write(chunk);
  if (typeof pending !== "number") await pending;
}

/** Removes temp files left by a crash (called at start-up). */
export function clearTempFiles(dataDir: string): void {
  const tmp = resolve(dataDir, "media", ".tmp");
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
}
