import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createOutputTokenBudget } from "../../src/output/output-token-budget.js";
import { createStopSequenceMatcher } from "../../src/output/stop-sequences.js";
import { o200kEncoding } from "../../src/testing/index.js";
import { countTokens } from "../../src/tokens/token-counter.js";

const SEED = 20261122;

/** Cuts a text at the given offsets (sorted, clamped): every way a stream can deliver it. */
const splitAt = (text: string, cuts: ReadonlyArray<number>): string[] => {
  const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
  const out: string[] = [];
  let from = 0;
  for (const p of points) {
    out.push(text.slice(from, p));
    from = p;
  }
  out.push(text.slice(from));
  return out;
};
const cuts = fc.array(fc.nat({ max: 10_000 }), { maxLength: 20 });

/** Text made of pieces that stress both machines: words, spaces, JSON punctuation, stop-like runs. */
const PIECES = [
  "A",
  "Qm9",
  "z",
  "a",
  "b",
  "ab",
  "END",
  "EN",
  "\n",
  "\n\n",
  " ",
  "  ",
  "the",
  " cat",
  "'s",
  '"',
  "{",
  "}",
  ":",
  ",",
  ".",
  "1",
  "234",
  "é",
  "日本",
  "<tool_call>",
  "x".repeat(30),
  "Hello",
];
const text = fc.array(fc.constantFrom(...PIECES), { maxLength: 60 }).map((p) => p.join(""));
const stopSets = fc.array(fc.constantFrom("END", "\n\n", "ab", "a", "b a", "日本", "zzz", ""), {
  maxLength: 4,
});

/** The reference: the text before the earliest occurrence of any (non-empty) sequence. */
const expectedStop = (t: string, stops: ReadonlyArray<string>) => {
  let at = -1;
  for (const s of stops.filter((x) => x !== "")) {
    const i = t.indexOf(s);
    if (i >= 0 && (at < 0 || i < at)) at = i;
  }
  return at < 0 ? { text: t, stopped: false } : { text: t.slice(0, at), stopped: true };
};

describe("stop sequences, split anywhere", () => {
  it("emit exactly the text before the first match, never a partial match that is taken back", () => {
    fc.assert(
      fc.property(text, stopSets, cuts, (t, stops, at) => {
        const m = createStopSequenceMatcher(stops);
        let out = "";
        let stopped = false;
        for (const chunk of splitAt(t, at)) {
          const scan = m.push(chunk);
          out += scan.text;
          // Whatever was emitted so far is final: a prefix of the answer, with no match in it.
          expect(expectedStop(t, stops).text.startsWith(out)).toBe(true);
          if (scan.stopped) {
            stopped = true;
            break;
          }
        }
        if (!stopped) out += m.flush();
        expect({ text: out, stopped }).toEqual(expectedStop(t, stops));
      }),
      { seed: SEED, numRuns: 2000 },
    );
  });

  it("without sequences passes every delta through unchanged", () => {
    const m = createStopSequenceMatcher([]);
    expect(m.push("a\n\nb")).toEqual({ text: "a\n\nb", stopped: false });
    expect(m.flush()).toBe("");
  });
});

describe("output token budget, split anywhere", () => {
  it("counts incrementally exactly what o200k_base counts for the whole text", () => {
    fc.assert(
      fc.property(text, cuts, (t, at) => {
        const budget = createOutputTokenBudget(1_000_000, o200kEncoding);
        for (const chunk of splitAt(t, at))
          expect(budget.push(chunk)).toEqual({ accepted: chunk, exhausted: false });
        expect(budget.used()).toBe(countTokens(o200kEncoding, t));
      }),
      { seed: SEED, numRuns: 1000 },
    );
  });

  it("accepts a prefix within the limit and stops at it, however the text is split", () => {
    fc.assert(
      fc.property(text, fc.integer({ min: 1, max: 40 }), cuts, (t, limit, at) => {
        const budget = createOutputTokenBudget(limit, o200kEncoding);
        let accepted = "";
        let exhausted = false;
        for (const chunk of splitAt(t, at)) {
          const scan = budget.push(chunk);
          accepted += scan.accepted;
          if (scan.exhausted) {
            exhausted = true;
            break;
          }
        }
        expect(t.startsWith(accepted)).toBe(true);
        expect(countTokens(o200kEncoding, accepted)).toBeLessThanOrEqual(limit);
        if (!exhausted) {
          expect(accepted).toBe(t);
          expect(countTokens(o200kEncoding, t)).toBeLessThanOrEqual(limit);
        } else expect(countTokens(o200kEncoding, t)).toBeGreaterThan(limit);
      }),
      { seed: SEED, numRuns: 1000 },
    );
  });

  it("cuts one long delta at the token limit", () => {
    const budget = createOutputTokenBudget(5, o200kEncoding);
    const scan = budget.push("one two three four five six seven eight");
    expect(scan).toEqual({ accepted: "one two three four five", exhausted: true });
    expect(budget.push(" nine")).toEqual({ accepted: "", exhausted: true });
  });

  it("counts base64 (letters and digits) exactly, streamed in small deltas", () => {
    const blob = "Qm9vaW5nIGZvciB0aGUgZ2F0ZXdheQ==".repeat(600);
    const budget = createOutputTokenBudget(1_000_000, o200kEncoding);
    for (let i = 0; i < blob.length; i += 7) budget.push(blob.slice(i, i + 7));
    expect(budget.used()).toBe(countTokens(o200kEncoding, blob));
  });

  it("settles a long run without split points in bounded pieces, quickly and within a few percent", () => {
    const run = "abcdefghijklmnopqrstuvwxyz".repeat(400);
    const budget = createOutputTokenBudget(1_000_000, o200kEncoding);
    const started = performance.now();
    for (let i = 0; i < run.length; i += 7) budget.push(run.slice(i, i + 7));
    const elapsed = performance.now() - started;
    const exact = countTokens(o200kEncoding, run);
    expect(Math.abs(budget.used() - exact) / exact).toBeLessThan(0.05);
    expect(elapsed).toBeLessThan(1_000);
  });

  it("counts text that spells a special token as plain text", () => {
    const budget = createOutputTokenBudget(1_000, o200kEncoding);
    expect(budget.push("say <|endoftext|> and ")).toEqual({
      accepted: "say <|endoftext|> and ",
      exhausted: false,
    });
    expect(budget.push("<|im_start|>")).toEqual({ accepted: "<|im_start|>", exhausted: false });
    expect(budget.used()).toBe(countTokens(o200kEncoding, "say <|endoftext|> and <|im_start|>"));
  });
});

describe("output token budget, pathological runs", () => {
  it("a long whitespace run streamed in small deltas stays cheap", () => {
    const budget = createOutputTokenBudget(1_000_000, o200kEncoding);
    const started = performance.now();
    for (let i = 0; i < 20_000; i++) budget.push("     ");
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(budget.used()).toBeGreaterThan(0);
  });
});
