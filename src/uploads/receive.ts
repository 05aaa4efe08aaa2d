import type { ScopeCtx } from "../context";
import { ApiError, invalidPayload } from "../http/errors";
import type { TempFile } from "../media/storage";
import { parseMultipart, type FileSink, type PartInfo } from "./multipart";

/** api.video's per-request ceiling for one file part (apivideo-behaviour §2.1). */
export const MAX_REQUEST_FILE_BYTES = 209_715_200;

export interface ReceivedFile<S extends FileSink = TempFile> {
  /** Where the bytes went (a temp file unless the caller opened something else). */
  temp: S;
  info: PartInfo;
  size: number;
  /** Text fields of the form, wherever they stood relative to the file (e.g. `videoId`). */
  fields: Record<string, string>;
}

export interface UploadRequest {
  contentType: string | null;
  contentRange: string | null;
  body: ReadableStream<Uint8Array> | null;
}

/** The upload of a whole file in one request (no Content-Range): what a route hands to `receiveFile`. */
export const wholeFileUpload = (request: Request): UploadRequest => ({ contentType: request.headers.get("content-type"), contentRange: null, body: request.body });

const fileError = (kind: string, title: string, detail: string) => new ApiError(400, kind, title, { name: "file", detail });

/** Streams the request's single file part into a temp file (or what `open` gives); exactly one file is required. */
export async function receiveFile(ctx: ScopeCtx, request: UploadRequest, maxFileBytes?: number): Promise<ReceivedFile>;
export async function receiveFile<S extends FileSink>(ctx: ScopeCtx, request: UploadRequest, maxFileBytes: number, open: () => S): Promise<ReceivedFile<S>>;
export async function receiveFile(
  ctx: ScopeCtx, request: UploadRequest, maxFileBytes = MAX_REQUEST_FILE_BYTES, open: () => FileSink = () => ctx.storage.tempFile(),
): Promise<ReceivedFile<FileSink>> {
  if (!request.body || !request.contentType?.toLowerCase().startsWith("multipart/form-data")) {
    throw invalidPayload("Send the file as multipart/form-data.");
  }
  const temps: FileSink[] = [];
  const result = await parseMultipart(request.body, request.contentType, () => {
    const temp = open();
    temps.push(temp);
    return temp;
  }, { maxFileBytes, maxFiles: 1 });
  if (result.fileCount !== 1) {
    await Promise.all(temps.map((t) => t.abort()));
    if (!result.fileCount) throw fileError("uploaded-file-no-file", "There is no uploaded file in the request.", "Send one file part in the multipart body.");
    throw fileError("uploaded-file-multiple-files", "There is more than one uploaded file in the request.", "Send exactly one file part per request.");
  }
  const [file] = result.files;
  return { temp: temps[0], info: file.info, size: file.size, fields: result.fields };
}
