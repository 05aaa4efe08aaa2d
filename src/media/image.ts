// Still images customers upload (watermarks): their real format and size read from the bytes,
// never from the file name, and an ffmpeg decode check so a broken file is refused at upload
// rather than failing every encode that would burn it in.

/** A JPEG or PNG's format and pixel size. */
export interface ImageInfo {
  format: "jpg" | "png";
  width: number;
  height: number;
}

// PNG: 8-byte signature, then the IHDR chunk (length, "IHDR", width, height as big-endian u32).
function pngInfo(b: Uint8Array, view: DataView): ImageInfo | null {
  const signature = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  if (b.length < 24 || !signature.every((v, i) => b[i] === v)) return null;
  if (String.fromCharCode(b[12], b[13], b[14], b[15]) !== "IHDR") return null;
  return { format: "png", width: view.getUint32(16), height: view.getUint32(20) };
}

// JPEG: FF D8, then marker segments (FF xx, big-endian length) up to a start-of-frame, which holds
// height then width. SOF markers are C0–CF except C4 (Huffman tables), C8 (reserved) and CC (arithmetic).
function jpegInfo(b: Uint8Array, view: DataView): ImageInfo | null {
  if (b.length < 4 || b[0] !== 0xff || b[1] !== 0xd8) return null;
  let at = 2;
  while (at + 4 <= b.length) {
    if (b[at] !== 0xff) return null;
    const marker = b[at + 1];
    if (marker === 0xff) { at++; continue; } // fill byte
    if (marker === 0xd9 || marker === 0xda) return null; // end of image or scan data before any frame header
    const length = view.getUint16(at + 2);
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      if (at + 9 > b.length) return null;
      return { format: "jpg", height: view.getUint16(at + 5), width: view.getUint16(at + 7) };
    }
    at += 2 + length;
  }
  return null;
}

/** The format and size of a JPEG or PNG from its bytes; null for anything else (or a header cut short). */
export function imageInfo(bytes: Uint8Array): ImageInfo | null {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const info = pngInfo(bytes, view) ?? jpegInfo(bytes, view);
  return info && info.width > 0 && info.height > 0 ? info : null;
}

/** ffmpeg arguments decoding the image once and discarding it: a non-zero exit means the file is broken. */
export function imageCheckArgs(file: string): string[] {
  return [
    "-xerror", // stop with an error status at the first problem
    "-err_detect", "explode", // treat decoder warnings (a truncated JPEG) as errors too
    "-i", file,
    "-map", "0:v:0", // the picture
    "-frames:v", "1", // a still image has one
    "-f", "null", "-", // decode only, write nothing
  ];
}
