import { expect, test } from "bun:test";
import { continuesAt, resumeHeaders, validatorOf } from "./resume";

test("a strong ETag is the validator, else a valid Last-Modified, else none", () => {
  expect(validatorOf({ etag: '"abc"', "last-modified": "Sun, 22 Nov 2026 06:00:00 GMT" })).toBe('"abc"');
  expect(validatorOf({ etag: 'W/"abc"', "last-modified": "Sun, 22 Nov 2026 06:00:00 GMT" })).toBe("Sun, 22 Nov 2026 06:00:00 GMT");
  expect(validatorOf({ etag: 'W/"abc"' })).toBeNull();
  expect(validatorOf({ "last-modified": "yesterday-ish" })).toBeNull();
  expect(validatorOf({})).toBeNull();
});

test("the rest of the file is asked for under the validator", () => {
  expect(resumeHeaders({ offset: 1000, validator: '"abc"' })).toEqual({ range: "bytes=1000-", "if-range": '"abc"' });
  expect(resumeHeaders(undefined)).toEqual({});
});

test("only a range from the kept offset to the end continues the download", () => {
  expect(continuesAt("bytes 1000-4999/5000", 1000)).toBe(true);
  expect(continuesAt("bytes 0-4999/5000", 1000)).toBe(false);
  expect(continuesAt("bytes 1000-1999/5000", 1000)).toBe(false);
  expect(continuesAt("bytes 1000-4999/*", 1000)).toBe(false);
  expect(continuesAt(undefined, 1000)).toBe(false);
});
