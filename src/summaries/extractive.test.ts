import { describe, expect, test } from "bun:test";
import { TRANSCRIPTS } from "../../test/fixtures/transcripts";
import { extractiveSummary, splitSentences, textRank, textUnits, tfidf, tokens } from "./extractive";
import { STOP_WORDS, stopWordLanguage } from "./stopwords";

const norm = (s: string) => s.replace(/\s+/g, " ").trim();
const wordCount = (s: string) => s.split(/\s+/).filter(Boolean).length;

/** Positions of `parts` in `text`, failing if one is not there. */
function positions(text: string, parts: string[]): number[] {
  return parts.map((p) => {
    const at = text.indexOf(p);
    if (at < 0) throw new Error(`not in the transcript: ${p}`);
    return at;
  });
}

describe.each(Object.entries(TRANSCRIPTS))("%s transcript", (lang, transcript) => {
  const text = norm(transcript);
  const summary = extractiveSummary(transcript, { language: null, attributes: ["abstract", "takeaways"] });

  test("the stop-words of its language are detected", () => {
    expect(stopWordLanguage(text.toLowerCase().match(/\p{L}+/gu)!, null)).toBe(lang as "en");
  });

  test("abstract: 20 to 300 words of the transcript's sentences, in spoken order", () => {
    const abstract = summary.abstract!;
    expect(wordCount(abstract)).toBeGreaterThanOrEqual(20);
    expect(wordCount(abstract)).toBeLessThanOrEqual(300);
    expect(wordCount(abstract)).toBeLessThan(wordCount(text) / 2);
    const at = positions(text, splitSentences(abstract));
    expect(at).toEqual([...at].sort((a, b) => a - b));
  });

  test("exactly three distinct takeaways taken from the text, in the order they occur", () => {
    const takeaways = summary.takeaways!;
    expect(takeaways).toHaveLength(3);
    expect(new Set(takeaways).size).toBe(3);
    const at = positions(text, takeaways);
    expect(at).toEqual([...at].sort((a, b) => a - b));
    for (const t of takeaways) expect(wordCount(t)).toBeGreaterThanOrEqual(4);
  });

  test("deterministic, and the language hint gives the same result", () => {
    expect(extractiveSummary(transcript, { language: null, attributes: ["abstract", "takeaways"] })).toEqual(summary);
    expect(extractiveSummary(transcript, { language: lang, attributes: ["abstract", "takeaways"] })).toEqual(summary);
  });
});

describe("what the summaries say", () => {
  test("central sentences, not greetings", () => {
    const en = extractiveSummary(TRANSCRIPTS.en, { language: "en", attributes: ["abstract", "takeaways"] });
    expect(en.abstract).toContain("green material and brown material");
    expect(en.abstract).not.toContain("Thank you for watching");
    expect(en.takeaways!.join(" ")).not.toContain("Welcome");
    const fr = extractiveSummary(TRANSCRIPTS.fr, { language: "fr", attributes: ["takeaways"] });
    expect(fr.takeaways!.join(" ")).toContain("levain");
    const de = extractiveSummary(TRANSCRIPTS.de, { language: "de", attributes: ["abstract"] });
    expect(de.abstract).toContain("Wechselrichter");
    const es = extractiveSummary(TRANSCRIPTS.es, { language: "es", attributes: ["abstract"] });
    expect(es.abstract).toContain("plantas de interior");
  });

  test("only the attributes asked for", () => {
    expect(Object.keys(extractiveSummary(TRANSCRIPTS.en, { language: null, attributes: ["abstract"] }))).toEqual(["abstract"]);
    expect(Object.keys(extractiveSummary(TRANSCRIPTS.en, { language: null, attributes: ["takeaways"] }))).toEqual(["takeaways"]);
  });

  test("captions without punctuation are cut into pieces and still give three takeaways", () => {
    const flat = TRANSCRIPTS.en.replace(/[.,;!?]/g, "").toLowerCase();
    const s = extractiveSummary(flat, { language: null, attributes: ["abstract", "takeaways"] });
    expect(s.takeaways).toHaveLength(3);
    const at = positions(norm(flat), s.takeaways!);
    expect(at).toEqual([...at].sort((a, b) => a - b));
    expect(wordCount(s.abstract!)).toBeGreaterThanOrEqual(20);
  });

  test("a long talk keeps the abstract at 300 words or fewer", () => {
    const long = Object.values(TRANSCRIPTS).join(" ").repeat(6);
    expect(wordCount(extractiveSummary(long, { language: null, attributes: ["abstract"] }).abstract!)).toBeLessThanOrEqual(300);
  });

  test("50 words in two sentences still give three takeaways", () => {
    const short = "The river floods every spring when the snow melts in the mountains and the water rises quickly over the fields near the village. The farmers have built stone walls and deep ditches to protect their houses, their barns and their animals from the cold water that comes back every year.";
    expect(wordCount(short)).toBeGreaterThanOrEqual(50);
    const s = extractiveSummary(short, { language: "en", attributes: ["abstract", "takeaways"] });
    expect(s.takeaways).toHaveLength(3);
    positions(short, s.takeaways!);
    expect(wordCount(s.abstract!)).toBeGreaterThanOrEqual(20);
  });
});

describe("the parts", () => {
  test("sentences keep abbreviations whole", () => {
    expect(splitSentences("Dr. Smith arrived. He said e.g. this! Then? The end…  Done")).toEqual(["Dr. Smith arrived.", "He said e.g. this!", "Then?", "The end…", "Done"]);
  });

  test("units: long sentences are cut at clauses", () => {
    const long = Array.from({ length: 6 }, (_, i) => `clause number ${i} has a few more words in it`).join(", ") + ".";
    const units = textUnits(long);
    expect(units.length).toBeGreaterThan(1);
    expect(units.join(" ")).toBe(long);
  });

  test("tokens drop stop-words and split apostrophes", () => {
    expect(tokens("L'homme et la femme mangent du pain", STOP_WORDS.fr)).toEqual(["homme", "femme", "mangent", "pain"]);
  });

  test("TextRank ranks the sentence most like the others first", () => {
    const units = [["cats", "purr"], ["cats", "dogs", "purr", "bark"], ["dogs", "bark"], ["weather", "rain"]];
    const score = textRank(tfidf(units));
    expect(score.indexOf(Math.max(...score))).toBe(1);
    expect(score[3]).toBeLessThan(score[0]);
    expect(score.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 6);
  });
});

test("a language hint that names an Object member is no language: the text decides", () => {
  const tokens = "the cat sat on the mat and it was happy with the day".split(" ");
  for (const hint of ["constructor", "__proto__", "toString-x"]) expect(stopWordLanguage(tokens, hint)).toBe("en");
});
