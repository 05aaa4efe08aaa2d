import { expect, test } from "bun:test";
import { newId } from "./ids";
import { constantTimeEqual, hmacSha256Hex, maskSecret, sha256Hex } from "./security";

test("webhook signature matches api.video's verified test vector", () => {
  const body = '{"type":"video.encoding.quality.completed","emittedAt":"2021-01-29T15:46:25.217Z","videoId":"vi0000000000000000000000","liveStreamId":"li0000000000000000000000","encoding":"hls","quality":"720p"}';
  expect(hmacSha256Hex("sig_sec_0000000000000000000000", body)).toBe("27a77d3a7fc626854886b5dbfae4e32c8b0170c1ea1b714c91ba77f1e7774e8c");
});

test("constant-time compare", () => {
  expect(constantTimeEqual("abc", "abc")).toBe(true);
  expect(constantTimeEqual("abc", "abd")).toBe(false);
  expect(constantTimeEqual("abc", "abcd")).toBe(false);
});

test("ids are prefix + 22 base62 and not sequential", () => {
  const ids = new Set(Array.from({ length: 1000 }, () => newId("vi")));
  expect(ids.size).toBe(1000);
  for (const id of ids) expect(id).toMatch(/^vi[0-9A-Za-z]{22}$/);
});

test("hashes and masks", () => {
  expect(sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  expect(maskSecret("abcdefgh")).toBe("abcd****");
});
