import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { generatedMessage, hostileMessage } from "./message-arbitraries.js";
import { assertSameAsOneChunk, observed, parseChunks, parserOptions, splitAt } from "./parser-harness.js";

const SEED = 20260902;
/** Tiny block budgets exercise block-too-large under every chunking (built once: ajv compiles per instance). */
const blockLimits = [
  parserOptions(undefined, { maxBlockBytes: 48 }),
  parserOptions(undefined, { maxBlockBytes: 160 }),
  parserOptions(),
];
const cuts = fc.array(fc.nat({ max: 4000 }), { maxLength: 12 });

describe("sentinel parser: properties", () => {
  it("reconstructs generated messages exactly, in one chunk, 1-char chunks and random splits (600 runs)", {
    timeout: 120_000,
  }, () => {
    fc.assert(
      fc.property(generatedMessage(), cuts, ({ message, expected }, cutPoints) => {
        const whole = assertSameAsOneChunk(message, [[...message], splitAt(message, cutPoints)]);
        expect(observed(whole)).toEqual(expected);
        // Accepted calls never leak their sentinels into text (a fenced copy in the model may).
        const text = whole.flatMap((e) => (e.type === "text-delta" ? [e.delta] : [])).join("");
        const modelText = expected.flatMap((e) => (e.kind === "text" ? [e.text] : [])).join("");
        for (const e of whole) {
          if (e.type === "tool-call-end")
            expect(text.split(e.raw).length).toBe(modelText.split(e.raw).length);
        }
        expect(
          whole.some((e) => e.type === "tool-call-end" && (e.repaired || e.schemaWarning !== undefined)),
        ).toBe(false);
      }),
      { numRuns: 600, seed: SEED },
    );
  });

  it("gives the same events for every two-way split (150 runs)", { timeout: 120_000 }, () => {
    const shortMessage = generatedMessage(4).filter(({ message }) => message.length <= 320);
    fc.assert(
      fc.property(shortMessage, ({ message }) => {
        const splits = Array.from({ length: message.length + 1 }, (_, i) => [
          message.slice(0, i),
          message.slice(i),
        ]);
        assertSameAsOneChunk(message, splits);
      }),
      { numRuns: 150, seed: SEED + 1 },
    );
  });

  it("is split-invariant on hostile input: garbage, unknown and strict tools, cut-offs, tiny block limits (400 runs)", {
    timeout: 120_000,
  }, () => {
    fc.assert(
      fc.property(hostileMessage, cuts, fc.constantFrom(...blockLimits), (message, cutPoints, options) => {
        assertSameAsOneChunk(
          message,
          [[...message], splitAt(message, cutPoints), splitAt(message, [1, 2, 3, 5, 8, 13, 21])],
          options,
        );
      }),
      { numRuns: 400, seed: SEED + 2 },
    );
  });

  it("never loses text: with no accepted call, the text events spell the message minus dropped whitespace (300 runs)", {
    timeout: 60_000,
  }, () => {
    fc.assert(
      fc.property(hostileMessage, (message) => {
        const events = parseChunks([message]);
        if (events.some((e) => e.type === "tool-call-end" || (e.type === "tool-call-rejected" && e.strict)))
          return;
        const text = events.flatMap((e) => (e.type === "text-delta" ? [e.delta] : [])).join("");
        expect(text).toBe(message.replace(/^\s+/, ""));
      }),
      { numRuns: 300, seed: SEED + 3 },
    );
  });
});
