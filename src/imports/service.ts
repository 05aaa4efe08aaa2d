// POST /videos with `source`: a URL to download or the videoId of a video to copy (behaviour §2.6).
// The video is created at once (202) with ingest `ingesting`; a durable job fetches the file.
import { and, eq } from "drizzle-orm";
import type { ScopeCtx } from "../context";
import { videos } from "../db/schema";
import { invalidAttribute } from "../http/errors";
import type { VideoRow } from "../videos/body";
import { createVideo, IMPORT_JOB, type VideoInput } from "../videos/service";
import { urlProblem } from "./download";

const VIDEO_ID = /^vi[0-9A-Za-z]{22}$/;

/** True when an `import_from` value names a video to copy rather than a URL. */
export const isCopy = (importFrom: string) => VIDEO_ID.test(importFrom);

const refuse = (title: string) => invalidAttribute("source", title);

/**
 * Checks `source` before anything is created: a videoId must be a video of this project and
 * environment whose source has arrived (another project's id is refused like an unknown one); a URL
 * must be http(s), without credentials, and not an internal address literal. Returns the row
 * columns the import starts with.
 */
function importColumns(ctx: ScopeCtx, raw: string) {
  const source = raw.trim();
  if (VIDEO_ID.test(source)) {
    const from = ctx.db.select().from(videos)
      .where(and(eq(videos.projectId, ctx.projectId), eq(videos.environment, ctx.environment), eq(videos.id, source))).get();
    if (!from) throw refuse("No video with this videoId exists in this project and environment.");
    if (from.ingestStatus !== "uploaded" && from.ingestStatus !== "ingested") {
      throw refuse("The video to copy has no source yet; copy it once its upload or import has finished.");
    }
    return { importFrom: source, sourceType: "copy", sourceName: from.sourceName };
  }
  let url: URL;
  try {
    url = new URL(source);
  } catch {
    throw refuse("This attribute must be an http(s) URL or a videoId of this project.");
  }
  const problem = urlProblem(url, ctx.config.importAllowPrivate);
  if (problem) throw refuse(problem);
  let name = url.pathname.split("/").pop() ?? "";
  try {
    name = decodeURIComponent(name);
  } catch {
    // kept as sent
  }
  name = name.slice(0, 255);
  return { importFrom: url.href, sourceType: "import", sourceName: name || null };
}

/** Creates the video with ingest `ingesting` (plus `extra` columns: watermark, clip) and queues its import job in the same transaction. */
export function importVideo(ctx: ScopeCtx, input: VideoInput & { title: string; source: string }, extra: Partial<VideoRow> = {}) {
  const { source, ...rest } = input;
  const columns = importColumns(ctx, source);
  const body = ctx.db.transaction((tx) => {
    const created = createVideo({ ...ctx, db: tx as unknown as ScopeCtx["db"] }, rest, { ...extra, ...columns, ingestStatus: "ingesting" });
    ctx.queue.enqueue(tx, IMPORT_JOB, { videoId: created.videoId }, { maxAttempts: 4 });
    return created;
  });
  ctx.queue.notify();
  return body;
}
