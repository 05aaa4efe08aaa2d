// Browser uploads with api.video's progressive protocol: the file goes in byte ranges, each a
// multipart POST to /videos/{id}/source with `Content-Range: bytes from-to/total`.

/** Every chunk but the last must hold at least 5 MiB; 8 MiB keeps progress smooth and requests few. */
export const CHUNK_BYTES = 8 * 1024 * 1024;

export interface Chunk {
  from: number;
  /** Inclusive. */
  to: number;
}

/** The byte ranges of a file of `size` bytes (one range for a small file; none for an empty one). */
export function planChunks(size: number, chunkBytes = CHUNK_BYTES): Chunk[] {
  const chunks: Chunk[] = [];
  for (let from = 0; from < size; from += chunkBytes) chunks.push({ from, to: Math.min(size, from + chunkBytes) - 1 });
  return chunks;
}

/** The Content-Range header of one chunk. */
export const contentRange = (chunk: Chunk, size: number) => `bytes ${chunk.from}-${chunk.to}/${size}`;

/** What came back for one chunk; `retryAfterS` from a 429's Retry-After. */
export interface ChunkAnswer {
  status: number;
  body: string;
  retryAfterS?: number;
}

/** Sends one chunk, reporting the bytes of it sent so far; resolves to the answer. */
export type SendChunk = (body: FormData, range: string, progress: (sentOfChunk: number) => void) => Promise<ChunkAnswer>;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Uploads `file` chunk by chunk through `send`, calling `progress` with the fraction done (0..1).
 * A chunk that fails for the network or a 5xx is retried twice; a 429 waits for its Retry-After
 * (up to 10 times); any other 4xx stops the upload with its message.
 */
export async function uploadInChunks(
  file: Blob, name: string, send: SendChunk, progress: (fraction: number) => void,
  chunkBytes = CHUNK_BYTES, wait: (ms: number) => Promise<unknown> = sleep,
): Promise<void> {
  const chunks = planChunks(file.size, chunkBytes);
  if (!chunks.length) throw new Error("The file is empty.");
  for (const chunk of chunks) {
    for (let attempt = 1, waits = 0; ; attempt++) {
      const body = new FormData();
      body.append("file", file.slice(chunk.from, chunk.to + 1), name);
      const size = chunk.to - chunk.from + 1;
      let answer: ChunkAnswer | null = null;
      try {
        answer = await send(body, contentRange(chunk, file.size), (sent) => progress((chunk.from + Math.min(sent, size)) / file.size));
      } catch (err) {
        if (attempt >= 3) throw err;
      }
      if (answer && answer.status < 300) break;
      if (answer?.status === 429 && waits++ < 10) {
        attempt--;
        await wait(Math.max(1, answer.retryAfterS ?? 1) * 1000);
        continue;
      }
      if (answer && answer.status < 500) throw new Error(problemText(answer.body) ?? `The upload was refused (${answer.status}).`);
      if (attempt >= 3) throw new Error(`The upload failed (${answer?.status ?? "network error"}).`);
    }
    progress((chunk.to + 1) / file.size);
  }
}

function problemText(body: string): string | null {
  try {
    const problem = JSON.parse(body) as { title?: string; detail?: string };
    return [problem.title, problem.detail].filter(Boolean).join(" ") || null;
  } catch {
    return null;
  }
}

/** SendChunk over XMLHttpRequest, whose upload events give progress (fetch has none). */
export function xhrSender(url: string): SendChunk {
  return (body, range, progress) =>
    new Promise((resolve, reject) => {
      const xhr = new XMLHttpRequest();
      xhr.open("POST", url);
      xhr.withCredentials = true;
      xhr.setRequestHeader("Content-Range", range);
      // The multipart envelope adds a few hundred bytes: scale the body's progress to the chunk's bytes.
      xhr.upload.onprogress = (e) => {
        if (e.lengthComputable) progress(Math.floor((e.loaded / e.total) * ((body.get("file") as Blob).size)));
      };
      xhr.onload = () => resolve({ status: xhr.status, body: xhr.responseText, retryAfterS: Number(xhr.getResponseHeader("retry-after") ?? "1") });
      xhr.onerror = () => reject(new Error("The connection failed during the upload."));
      xhr.send(body);
    });
}
