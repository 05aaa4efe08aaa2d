import { randomBytes } from "node:crypto";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** Random base62 text of `length` characters (rejection sampling keeps it uniform). */
export function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      // 248 = 62 * 4: bytes at or above it would bias the first characters.
      if (byte < 248) out += BASE62[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

export type IdPrefix =
  | "vi" | "li" | "pl" | "to"
  | "webhook_" | "summary_" | "watermark_" | "caption_" | "project_" | "api_key_" | "delivery_" | "job_";

/** A new resource id: its prefix plus 22 random base62 characters. */
export function newId(prefix: IdPrefix): string {
  return prefix + randomBase62(22);
}

/** A secret meant to be shown once and stored hashed (API keys, tokens, signature secrets). */
export function newSecret(length = 43): string {
  return randomBase62(length);
}
