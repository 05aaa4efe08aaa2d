import type { ScopeCtx } from "../context";
import { ApiError, invalidPayload } from "../http/errors";
import type { TempFile } from "../media/storage";
import { parseMultipart, type PartInfo } from "./multipart";

/** api.video's per-request ceiling for one file part (apivideo-behaviour §2.1). */
export const MAX_REQUEST_FILE_BYTES = 209_715_200;

export interface ReceivedFile {
  temp: TempFile;
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

const fileError = (kind: string, title: string, detail: string) => new ApiError(400, kind, title, { name: "file", detail });

/** Streams the request's single file part into a temp file; exactly one file is required. */
export async function receiveFile(ctx: ScopeCtx, request: UploadRequest, maxFileBytes = MAX_REQUEST_FILE_BYTES): Promise<ReceivedFile> {
  if (!request.body || !request.contentType?.toLowerCase().startsWith("multipart/form-data")) {
    throw invalidPayload("Send the file as multipart/form-data.");
  }
  const temps: TempFile[] = [];
  const result = await parseMultipart(request.body, request.contentType, () => {
    const temp = ctx.storage.tempFile();
    temps.push(temp);
    return { write: (chunk) => temp.write(chunk), end: () => temp.end(), abort: () => temp.abort() };
  }, { maxFileBytes, maxFiles: 1 });
  if (result.fileCount !== 1) {
    await Promise.all(temps.map((t) => t.abort()));
    if (!result.fileCount) throw fileError("uploaded-file-no-file", "There is no uploaded file in the request.", "Send one file part in the multipart body.");
    throw fileError("uploaded-file-multiple-files", "There is more than one uploaded file in the request.", "Send exactly one file part per request.");
  }
  const [file] = result.files;
  return { temp: temps[0], info: file.info, size: file.size, fields: result.fields };
}
