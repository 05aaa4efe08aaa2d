// Every §2.4 upload error reachable over HTTP, as a scenario table: earlier chunks that must succeed,
// then the request that must fail with 400 `<kind>`, JSON, and nothing of it stored. Each row runs
// against POST /videos/{id}/source (API key) and POST /upload?token= (with a videoId field).
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { startTestAppliance, type TestAppliance } from "../helpers";
import { form, MiB, noise, postChunk, statusOf, tempFiles, UNLIMITED } from "./upload-helpers";

setDefaultTimeout(120_000);

let app: TestAppliance;
let token: string;

const M = 5 * MiB; // the smallest chunk that is not the last
const MAX_TOTAL = 52_428_800_000;
const big = noise(M);
const tiny = noise(1000);

beforeAll(async () => {
  app = await startTestAppliance({ env: UNLIMITED });
  await app.ctx.queue.stop();
  const res = await app.api(app.sandboxKey, "POST", "/upload-tokens", { ttl: 0 });
  token = ((await res.json()) as { token: string }).token;
});
afterAll(() => app.close());

/** One request: its Content-Range (none = plain upload) and its file parts. */
interface Step {
  range?: string;
  /** File parts' sizes (default one part of `size`). */
  files?: Uint8Array[];
  size?: number;
}

const bytesOf = (size: number) => (size === M ? big : size === 1000 ? tiny : noise(size));
const chunk = (range: string | undefined, size: number): Step => ({ range, size });

interface Row {
  kind: string;
  /** Requests that must each answer 201 first. */
  before?: Step[];
  fail: Step;
}

const CR = "video-content-range-";
const rows: Row[] = [
  { kind: `${CR}malformed`, fail: chunk("bytes=0-10/100", 11) },
  { kind: `${CR}malformed`, fail: chunk("part one/*", 11) },
  { kind: `${CR}started-with-bytes`, before: [chunk(`bytes 0-${M - 1}/*`, M)], fail: chunk("part 2/*", M) },
  { kind: `${CR}started-with-part`, before: [chunk("part 1/*", M)], fail: chunk(`bytes ${M}-${2 * M - 1}/*`, M) },
  { kind: `${CR}already-initiated`, before: [chunk("part 1/*", M)], fail: chunk(undefined, 1000) },
  { kind: `${CR}already-initiated`, before: [chunk(`bytes 0-${M - 1}/*`, M)], fail: chunk(undefined, 1000) },
  { kind: `${CR}by-bytes-total-bytes-zero`, fail: chunk("bytes 0-0/0", 1) },
  { kind: `${CR}by-bytes-total-bytes-too-high`, fail: chunk(`bytes 0-${M - 1}/${MAX_TOTAL + 1}`, M) },
  { kind: `${CR}by-bytes-from-byte-too-high`, fail: chunk("bytes 10-5/100", 1000) },
  { kind: `${CR}by-bytes-to-byte-too-high-allowed`, fail: chunk(`bytes ${MAX_TOTAL - 10}-${MAX_TOTAL}/*`, 11) },
  { kind: `${CR}by-bytes-to-byte-too-high-total`, fail: chunk("bytes 0-1000/1000", 1001) },
  { kind: `${CR}by-bytes-to-byte-too-high-total`, before: [chunk(`bytes 0-${M - 1}/${2 * M}`, M)], fail: chunk(`bytes ${M}-${3 * M - 1}/*`, 2 * M) },
  { kind: `${CR}by-bytes-different-total-bytes`, before: [chunk(`bytes 0-${M - 1}/${3 * M}`, M)], fail: chunk(`bytes ${M}-${2 * M - 1}/${2 * M + 1}`, M) },
  { kind: `${CR}by-bytes-total-bytes-too-low`, before: [chunk(`bytes ${M}-${2 * M - 1}/*`, M)], fail: chunk(`bytes 0-${M - 1}/${M}`, M) },
  { kind: `${CR}by-bytes-range-mismatch`, fail: chunk(`bytes 0-${M - 1}/*`, 1000) },
  { kind: `${CR}by-bytes-range-mismatch`, fail: chunk("bytes 0-999/1000", 999) },
  { kind: `${CR}by-bytes-range-too-large`, fail: chunk(`bytes 0-${200 * MiB}/*`, 1000) },
  { kind: `${CR}by-bytes-range-too-small`, fail: chunk("bytes 0-999/*", 1000) },
  { kind: `${CR}by-bytes-range-too-small`, fail: chunk(`bytes 0-999/${M}`, 1000) },
  { kind: `${CR}by-bytes-range-overlap`, before: [chunk(`bytes 0-${M - 1}/*`, M)], fail: chunk(`bytes 100-${M + 99}/*`, M) },
  { kind: `${CR}by-part-part-zero`, fail: chunk("part 0/*", 1000) },
  { kind: `${CR}by-part-total-parts-zero`, fail: chunk("part 1/0", 1000) },
  { kind: `${CR}by-part-part-too-high-allowed`, fail: chunk("part 10001/*", 1000) },
  { kind: `${CR}by-part-total-parts-too-high`, fail: chunk("part 1/10001", 1000) },
  { kind: `${CR}by-part-part-too-high-total`, fail: chunk("part 3/2", 1000) },
  { kind: `${CR}by-part-part-too-high-total`, before: [chunk("part 1/2", M)], fail: chunk("part 3/*", 1000) },
  { kind: `${CR}by-part-different-total-parts`, before: [chunk("part 1/3", M)], fail: chunk("part 2/4", M) },
  { kind: `${CR}by-part-total-parts-too-low`, before: [chunk("part 3/*", M)], fail: chunk("part 1/2", M) },
  { kind: `${CR}by-part-part-already-sent`, before: [chunk("part 1/*", M)], fail: chunk("part 1/*", M) },
  { kind: `${CR}by-part-uploaded-file-too-small`, fail: chunk("part 1/*", 1000) },
  { kind: `${CR}by-part-uploaded-file-too-small`, fail: chunk("part 1/2", M - 1) },
  { kind: "uploaded-file-empty", fail: chunk(undefined, 0) },
  { kind: "uploaded-file-empty", fail: chunk("part 1/1", 0) },
  { kind: "uploaded-file-no-file", fail: { files: [] } },
  { kind: "uploaded-file-no-file", fail: { range: "part 1/*", files: [] } },
  { kind: "uploaded-file-multiple-files", fail: { files: [tiny, tiny] } },
  { kind: "uploaded-file-multiple-files", fail: { range: "part 1/1", files: [tiny, tiny] } },
  { kind: "video-source-already-uploaded", before: [chunk(undefined, 1000)], fail: chunk(undefined, 1000) },
  { kind: "video-source-already-uploaded", before: [chunk(undefined, 1000)], fail: chunk("part 1/1", 1000) },
  { kind: "video-source-already-uploaded", before: [chunk("part 1/2", M), chunk("part 2/2", 1000)], fail: chunk("part 3/*", 1000) },
  { kind: "video-source-already-uploaded", before: [chunk(`bytes 0-${M - 1}/${M + 1000}`, M), chunk(`bytes ${M}-${M + 999}/${M + 1000}`, 1000)], fail: chunk(undefined, 1000) },
];

type Route = "source" | "token";

async function send(route: Route, videoId: string, step: Step): Promise<Response> {
  const files = (step.files ?? [bytesOf(step.size ?? 0)]).map((bytes, i) => ({ name: `f${i}.mp4`, filename: `f${i}.mp4`, bytes }));
  // The Node client's progressive token session puts videoId after the file; do the same.
  const body = form(files);
  if (route === "token") body.append("videoId", videoId);
  const path = route === "source" ? `/videos/${videoId}/source` : `/upload?token=${token}`;
  return postChunk(app, app.sandboxKey, path, body, step.range);
}

const describeStep = (s: Step) => `${s.range ?? "no range"} [${(s.files ?? [{ length: s.size }]).map((f) => f.length).join(",") || "no file"}]`;

for (const route of ["source", "token"] as Route[]) {
  describe(`POST ${route === "source" ? "/videos/{id}/source" : "/upload?token="}`, () => {
    for (const row of rows) {
      const label = `${row.kind}: ${[...(row.before ?? []), row.fail].map(describeStep).join(" → ")}`;
      test(label, async () => {
        const created = await app.api(app.sandboxKey, "POST", "/videos", { title: row.kind });
        const { videoId } = (await created.json()) as { videoId: string };
        for (const step of row.before ?? []) {
          const res = await send(route, videoId, step);
          expect([describeStep(step), res.status]).toEqual([describeStep(step), 201]);
          expect(((await res.json()) as { videoId: string }).videoId).toBe(videoId);
        }
        const before = await statusOf(app, app.sandboxKey, videoId);
        const res = await send(route, videoId, row.fail);
        expect(res.status).toBe(400);
        expect(res.headers.get("content-type")).toBe("application/json");
        const problem = (await res.json()) as { type: string; status: number; title: string };
        expect(problem.type).toEndWith(`/reference/${row.kind}`);
        expect(problem.status).toBe(400);
        expect(problem.title).toBeString();
        // The refused request left nothing behind and changed nothing.
        expect(tempFiles(app)).toEqual([]);
        expect(await statusOf(app, app.sandboxKey, videoId)).toEqual(before);
      });
    }
  });
}

test("a token upload with a bad Content-Range creates no video", async () => {
  const count = async () => ((await (await app.api(app.sandboxKey, "GET", "/videos?pageSize=1")).json()) as { pagination: { itemsTotal: number } }).pagination.itemsTotal;
  const before = await count();
  const attempts: [string | undefined, Uint8Array[]][] = [
    ["bytes=0-1/2", [tiny]], ["part 0/*", [tiny]], ["part 1/*", [tiny]], ["bytes 0-999/*", [tiny]], ["part 1/1", [noise(0)]],
    [undefined, [noise(0)]], [undefined, []], [undefined, [tiny, tiny]], ["part 1/*", [tiny, tiny]],
  ];
  for (const [range, files] of attempts) {
    const res = await postChunk(app, app.sandboxKey, `/upload?token=${token}`, form(files.map((bytes) => ({ bytes }))), range);
    expect([range, files.length, res.status]).toEqual([range, files.length, 400]);
  }
  expect(await count()).toBe(before);
  expect(tempFiles(app)).toEqual([]);
});

test("a declared range over 200 MiB is refused before the body is sent", async () => {
  const created = await app.api(app.sandboxKey, "POST", "/videos", { title: "too large" });
  const { videoId } = (await created.json()) as { videoId: string };
  const { port } = new URL(app.urls.sandbox);
  const received: Buffer[] = [];
  let closed!: () => void;
  const done = new Promise<void>((r) => (closed = r));
  const socket = await Bun.connect({
    hostname: "127.0.0.1",
    port: Number(port),
    socket: {
      data(_s, data) {
        received.push(Buffer.from(data));
        if (Buffer.concat(received).includes("}")) closed();
      },
      close() {
        closed();
      },
    },
  });
  // Announce a 201 MiB body and send only its first bytes: the answer must come anyway.
  const boundary = "vidhostboundary";
  const head = [
    `POST /videos/${videoId}/source HTTP/1.1`,
    `Host: 127.0.0.1:${port}`,
    `Authorization: Basic ${Buffer.from(`${app.sandboxKey}:`).toString("base64")}`,
    `Content-Type: multipart/form-data; boundary=${boundary}`,
    `Content-Range: bytes 0-${201 * MiB - 1}/*`,
    `Content-Length: ${201 * MiB + 200}`,
    "", "",
  ].join("\r\n");
  socket.write(head + `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.mp4"\r\n\r\n`);
  socket.write(big.subarray(0, 64 * 1024));
  await done;
  socket.end();
  const response = Buffer.concat(received).toString("latin1");
  expect(response).toStartWith("HTTP/1.1 400");
  expect(response.toLowerCase()).toContain("content-type: application/json\r\n");
  expect(response).toContain("/reference/video-content-range-by-bytes-range-too-large");
  expect(tempFiles(app)).toEqual([]);
});

for (const range of [undefined, "part 1/*"]) {
  test(`a file part over 200 MiB (${range ?? "no range"}) is uploaded-file-too-large, and nothing is kept`, async () => {
    const created = await app.api(app.sandboxKey, "POST", "/videos", { title: "over 200 MiB" });
    const { videoId } = (await created.json()) as { videoId: string };
    const before = await statusOf(app, app.sandboxKey, videoId);
    // 201 MiB of one reused buffer, streamed: nothing of the size is held by the test either.
    const piece = new Uint8Array(MiB);
    let sent = 0;
    let started = false;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (!started) {
          controller.enqueue(Buffer.from('--b\r\nContent-Disposition: form-data; name="file"; filename="big.mp4"\r\n\r\n'));
          started = true;
        } else if (sent < 201 * MiB) {
          controller.enqueue(piece);
          sent += MiB;
        } else {
          controller.enqueue(Buffer.from("\r\n--b--\r\n"));
          controller.close();
        }
      },
    });
    const res = await postChunk(app, app.sandboxKey, `/videos/${videoId}/source`, body, range, { "content-type": "multipart/form-data; boundary=b" });
    expect(res.status).toBe(400);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(((await res.json()) as { type: string }).type).toEndWith("/reference/uploaded-file-too-large");
    expect(tempFiles(app)).toEqual([]);
    expect(await statusOf(app, app.sandboxKey, videoId)).toEqual(before);
  });
}
