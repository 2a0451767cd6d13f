import { countTokens as wholeCount } from "gpt-tokenizer/encoding/o200k_base";
import { describe, expect, it } from "vitest";
import { countTokens, estimateTokens, TOKEN_PIECE_CHARS, tokenPrefix } from "../../src/index.js";
import { o200kEncoding } from "../../src/testing/index.js";

const AS_TEXT = { disallowedSpecial: new Set<string>() };
/** A seeded generator, so a failure can be replayed. */
const seeded = (seed: number) => () => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed / 0x7fffffff;
};
const randomText = (n: number, alphabet: string, random = seeded(n)) => {
  let out = "";
  for (let i = 0; i < n; i++) out += alphabet[Math.floor(random() * alphabet.length)];
  return out;
};

describe("countTokens (o200k_base)", () => {
  it("counts the known o200k encoding of short texts", () => {
    expect(countTokens(o200kEncoding, "")).toBe(0);
    expect(countTokens(o200kEncoding, "hi there")).toBe(2);
    expect(countTokens(o200kEncoding, "hello world, <tool_call>")).toBe(7);
  });

  it("is exact on ordinary text of any length: prose, code, JSON, mixed scripts", () => {
    const samples = [
      "The quick brown fox jumps over the lazy dog, while 42 developers debug JSON at night.\n".repeat(400),
      "function foo(a, b) {\n  return a.map((x) => x * b).filter(Boolean);\n}\n".repeat(300),
      JSON.stringify(Array.from({ length: 600 }, (_, i) => ({ id: i, name: `item${i}`, tags: ["x", "y"] }))),
      "Grüße aus Köln — 東京は晴れです。Привет, мир! ".repeat(300),
      randomText(30_000, "abcdefghijklmnopqrstuvwxyz      ,.;\n0123456789ABC"),
    ];
    for (const text of samples) expect(countTokens(o200kEncoding, text)).toBe(wholeCount(text, AS_TEXT));
  });

  it("long runs of one class are counted in pieces: off by at most one token per piece", () => {
    for (const alphabet of [
      "abcdefghijklmnopqrstuvwxyz",
      "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
      "!#$%&*+-./:;<=>?@^_|~",
      "的一是不了人我在有他这为之大来以个中上们",
    ]) {
      const text = randomText(4000, alphabet);
      const exact = wholeCount(text, AS_TEXT);
      const ours = countTokens(o200kEncoding, text);
      expect(Math.abs(ours - exact)).toBeLessThanOrEqual(Math.ceil(text.length / TOKEN_PIECE_CHARS));
    }
  });

  it("is linear: a 200 KB run of letters (14.5 s in one piece) counts in well under a second", () => {
    const started = performance.now();
    countTokens(o200kEncoding, randomText(200_000, "abcdefghijklmnopqrstuvwxyz"));
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it("estimateTokens is exact up to 8 KiB and within 10% on long ordinary text", () => {
    const short = "hello world ".repeat(600);
    expect(estimateTokens(o200kEncoding, short)).toBe(countTokens(o200kEncoding, short));
    const long = randomText(200_000, "abcdefghijklmnopqrstuvwxyz      ,.;\n0123456789");
    const exact = countTokens(o200kEncoding, long);
    expect(Math.abs(estimateTokens(o200kEncoding, long) - exact) / exact).toBeLessThan(0.1);
  });

  it("tokenPrefix takes the first tokens of a long run without encoding all of it", () => {
    const text = randomText(500_000, "abcdefghijklmnopqrstuvwxyz");
    const prefix = tokenPrefix(o200kEncoding, text, 10);
    expect(text.startsWith(prefix)).toBe(true);
    expect(countTokens(o200kEncoding, prefix)).toBeLessThanOrEqual(10);
    expect(prefix.length).toBeGreaterThan(5);
  });
});
