// The pixel size of a PNG or JPEG read from its header, so player logos and watermarks are sized
// without decoding them (both are small enough to be wholly in memory).

/** Width and height of a PNG (IHDR) or JPEG (first SOFn frame header), or null when unreadable. */
export function imageSize(bytes: Uint8Array): { width: number; height: number } | null {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // PNG: 8-byte signature, then the IHDR chunk (length, "IHDR", width, height).
  if (bytes.length >= 24 && bytes[0] === 0x89 && bytes[1] === 0x50 && String.fromCharCode(...bytes.subarray(12, 16)) === "IHDR") {
    return nonZero(view.getUint32(16), view.getUint32(20));
  }
  if (bytes.length < 4 || bytes[0] !== 0xff || bytes[1] !== 0xd8) return null;
  // JPEG: walk the marker segments after SOI until a start-of-frame.
  let at = 2;
  while (at + 4 <= bytes.length) {
    if (bytes[at] !== 0xff) return null;
    const marker = bytes[at + 1];
    if (marker === 0xff) {
      at += 1; // fill byte
      continue;
    }
    // Standalone markers carry no length.
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      at += 2;
      continue;
    }
    if (marker === 0xd9 || marker === 0xda) return null; // end of image, or scan data before any frame header
    const length = view.getUint16(at + 2);
    // SOF0..SOF15 except DHT (C4), JPG (C8) and DAC (CC): precision, height, width.
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      if (at + 9 > bytes.length) return null;
      return nonZero(view.getUint16(at + 7), view.getUint16(at + 5));
    }
    if (length < 2) return null;
    at += 2 + length;
  }
  return null;
}

function nonZero(width: number, height: number) {
  return width > 0 && height > 0 ? { width, height } : null;
}
