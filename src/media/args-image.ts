// Still images customers upload (watermarks) are decoded once at upload, so a broken file is
// refused then rather than failing every encode that would burn it in.
import { IMAGE_DEMUXERS, userFileInput } from "./input-formats";

/** ffmpeg arguments decoding the image once and discarding it: a non-zero exit means the file is broken. */
export function imageCheckArgs(file: string): string[] {
  return [
    "-xerror", // stop with an error status at the first problem
    "-err_detect", "explode", // treat decoder warnings (a truncated JPEG) as errors too
    ...userFileInput(IMAGE_DEMUXERS), // a PNG or JPEG, read as nothing else
    "-i", file,
    "-map", "0:v:0", // the picture
    "-frames:v", "1", // a still image has one
    "-f", "null", "-", // decode only, write nothing
  ];
}
