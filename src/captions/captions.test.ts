import { describe, expect, test } from "bun:test";
import { captionLanguage, captionLanguageProblem, nativeName } from "./languages";
import { firstPts } from "./mpegts";
import { cuesToVtt, parseVtt, vttStamp, vttToText, withTimestampMap } from "./vtt";

describe("caption languages", () => {
  test.each([
    ["en", "en", "English"],
    ["fr", "fr", "français"],
    ["fr-ca", "fr-CA", "français canadien"],
    ["sr-Cyrl", "sr-Cyrl", "српски (ћирилица)"],
    ["zh-Hans-CN", "zh-Hans-CN", "中文（简体，中国）"],
    ["es-419", "es-419", "Español latinoamericano"],
    ["de", "de", "Deutsch"],
  ])("%s → %s, named %s", (raw, tag, name) => {
    expect(captionLanguage(raw)).toEqual({ tag, name });
  });

  test("only letters and dashes", () => {
    for (const bad of ["en_US", "fr BE", "en.vtt", "../x", "fr--BE", "-fr"]) {
      expect(captionLanguageProblem(bad)).toContain("only letters and dashes");
    }
  });

  test("well formed but unknown", () => {
    for (const bad of ["xx", "qq", "zz-ZZ", "english", "fr-FR-u-ca-buddhist", "x-foo"]) {
      expect(captionLanguageProblem(bad)).toBe('The "language" attribute is not valid.');
    }
  });

  test("the error is api.video's invalid-attribute naming language", () => {
    try {
      captionLanguage("en_US");
      throw new Error("accepted");
    } catch (err) {
      const body = (err as { body(d: string): Record<string, unknown> }).body("https://docs.api.video");
      expect(body).toMatchObject({ type: "https://docs.api.video/reference/invalid-attribute", name: "language", status: 400 });
    }
  });

  test("names fall back to the tag", () => {
    expect(nativeName("qq")).toBe("qq");
  });
});

const SAMPLE = `WEBVTT - a sample
Kind: captions

NOTE a comment
that spans lines

1
00:00:01.000 --> 00:00:03.500 align:start
<v Roger>Hello &amp; <i>welcome</i></v>

00:03.500 --> 00:05.000
to the show.
Second line.

00:05.000 --> 00:06.000
to the show.
Second line.

garbage block without timing
`;

describe("WebVTT", () => {
  test("cues with markup stripped, NOTE and junk skipped", () => {
    expect(parseVtt(SAMPLE)).toEqual([
      { startS: 1, endS: 3.5, text: "Hello & welcome" },
      { startS: 3.5, endS: 5, text: "to the show.\nSecond line." },
      { startS: 5, endS: 6, text: "to the show.\nSecond line." },
    ]);
  });

  test("text of a caption file, repeated cues once", () => {
    expect(vttToText(SAMPLE)).toBe("Hello & welcome to the show. Second line.");
  });

  test("stamps and a round trip", () => {
    expect(vttStamp(3723.456)).toBe("01:02:03.456");
    const cues = [{ startS: 0, endS: 2.5, text: "one" }, { startS: 2.5, endS: 4, text: "two --> three" }];
    const vtt = cuesToVtt(cues);
    expect(vtt.startsWith("WEBVTT\n\n00:00:00.000 --> 00:00:02.500\none\n")).toBe(true);
    expect(parseVtt(vtt)).toEqual([cues[0], { startS: 2.5, endS: 4, text: "two -> three" }]);
  });

  test("the timestamp map goes into the header", () => {
    expect(withTimestampMap("WEBVTT\n\n00:01.000 --> 00:02.000\nhi\n", 126000)).toBe(
      "WEBVTT\nX-TIMESTAMP-MAP=MPEGTS:126000,LOCAL:00:00:00.000\n\n00:01.000 --> 00:02.000\nhi\n",
    );
    // CRLF, a header line, and an existing map replaced.
    expect(withTimestampMap("WEBVTT title\r\nX-TIMESTAMP-MAP=MPEGTS:0,LOCAL:00:00:00.000\r\n\r\n00:01.000 --> 00:02.000\r\nhi", 900)).toBe(
      "WEBVTT title\nX-TIMESTAMP-MAP=MPEGTS:900,LOCAL:00:00:00.000\n\n00:01.000 --> 00:02.000\nhi",
    );
    expect(withTimestampMap("00:01.000 --> 00:02.000\nhi", 5)).toBe("WEBVTT\nX-TIMESTAMP-MAP=MPEGTS:5,LOCAL:00:00:00.000\n\n00:01.000 --> 00:02.000\nhi");
  });
});

// One 188-byte TS packet starting a PES of `streamId` with the given 33-bit PTS.
function pesPacket(pid: number, streamId: number, pts: number): Uint8Array {
  const p = new Uint8Array(188).fill(0xff);
  p.set([0x47, 0x40 | (pid >> 8), pid & 0xff, 0x10]);
  const hi = Math.floor(pts / 2 ** 30) & 0x07;
  p.set([0, 0, 1, streamId, 0, 0, 0x80, 0x80, 5,
    0x21 | (hi << 1), (pts >> 22) & 0xff, (((pts >> 15) & 0x7f) << 1) | 1, (pts >> 7) & 0xff, ((pts & 0x7f) << 1) | 1], 4);
  return p;
}

describe("first PTS of an MPEG-TS segment", () => {
  test("the smallest first PTS among streams", () => {
    const pat = new Uint8Array(188).fill(0xff);
    pat.set([0x47, 0x40, 0x00, 0x10, 0x00]);
    const ts = new Uint8Array([...pat, ...pesPacket(0x100, 0xe0, 128_070), ...pesPacket(0x101, 0xc0, 126_000), ...pesPacket(0x100, 0xe0, 50)]);
    expect(firstPts(ts)).toBe(126_000);
  });

  test("33-bit values", () => {
    expect(firstPts(pesPacket(0x100, 0xe0, 2 ** 33 - 2))).toBe(2 ** 33 - 2);
  });

  test("not MPEG-TS", () => {
    expect(firstPts(new TextEncoder().encode("WEBVTT\n\nnot a transport stream".padEnd(400, ".")))).toBeNull();
  });
});
