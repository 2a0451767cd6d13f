import { describe, expect, it } from "vitest";
import { jsonString, needsJsonEscape } from "../src/index.js";

const quoted = (s: string) => `"${s}"`;
const isSurrogate = (c: number) => c >= 0xd800 && c <= 0xdfff;

describe("needsJsonEscape", () => {
  it("answers, for every UTF-16 code unit, whether JSON.stringify escapes it (surrogates always left to it)", () => {
    for (let c = 0; c <= 0xffff; c += 1) {
      const s = `ab${String.fromCharCode(c)}cd`;
      if (isSurrogate(c)) expect(needsJsonEscape(s)).toBe(true);
      else expect(needsJsonEscape(s)).toBe(JSON.stringify(s) !== quoted(s));
    }
  });

  it("is false for plain token-sized text, whose JSON is the text between quotes", () => {
    for (const s of ["The ", "gateway ", "déjà vu", "日本語", "", "a".repeat(64)]) {
      expect(needsJsonEscape(s)).toBe(false);
      expect(JSON.stringify(s)).toBe(quoted(s));
    }
    expect(needsJsonEscape("é😀")).toBe(true);
  });

  it("leaves texts longer than a token piece to JSON.stringify", () => {
    expect(needsJsonEscape("a".repeat(65))).toBe(true);
  });
});

describe("jsonString", () => {
  it("is JSON.stringify for every UTF-16 code unit, alone and inside text, and for long text", () => {
    for (let c = 0; c <= 0xffff; c += 1) {
      const one = String.fromCharCode(c);
      expect(jsonString(one)).toBe(JSON.stringify(one));
      expect(jsonString(`ab${one}cd`)).toBe(JSON.stringify(`ab${one}cd`));
    }
    const long = `${"a".repeat(70)}"\n`;
    expect(jsonString(long)).toBe(JSON.stringify(long));
  });
});
