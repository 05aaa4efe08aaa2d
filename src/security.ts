import { createHmac, timingSafeEqual } from "node:crypto";

/** Lowercase hex SHA-256: how keys and tokens are stored. */
export function sha256Hex(value: string): string {
  // Bun's one-shot hash is about 4× cheaper than node:crypto's, and this runs on every request.
  return Bun.SHA256.hash(value, "hex");
}

/** Compares two strings in time independent of where they differ. */
export function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  // Compare against itself on a length mismatch so the time spent does not reveal the length.
  if (left.length !== right.length) return timingSafeEqual(left, left) && false;
  return timingSafeEqual(left, right);
}

/** Lowercase hex HMAC-SHA256 of `body`, keyed with the whole secret string (api.video's webhook signature). */
export function hmacSha256Hex(secret: string, body: string): string {
  return createHmac("sha256", secret).update(body).digest("hex");
}

/** A key's display form: a short prefix, the rest hidden. */
export function maskSecret(secret: string): string {
  return `${secret.slice(0, 4)}${"*".repeat(Math.max(0, secret.length - 4))}`;
}
