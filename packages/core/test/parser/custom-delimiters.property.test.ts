import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { blockFormatsReading, jsonBlockFormat } from "../../src/formats/index.js";
import type { SentinelParserOptions } from "../../src/parser/index.js";
import type { Expected } from "./message-arbitraries.js";
import { generatedMessage, hostileMessage } from "./message-arbitraries.js";
import { assertSameAsOneChunk, observed, parserOptions, splitAt } from "./parser-harness.js";

const SEED = 20261202;
const cuts = fc.array(fc.nat({ max: 4000 }), { maxLength: 12 });

interface Delimiters {
  readonly start: string;
  readonly end: string;
}

/**
 * Delimiters with characters JSON itself uses (`|`, `{`, `}`, `:`), a shared prefix with the default
 * tag, a space. They are swapped in raw, also inside JSON strings, so none holds a quote or backslash.
 */
const DELIMITERS: ReadonlyArray<Delimiters> = [
  { start: "<|tool_call|>", end: "<|/tool_call|>" },
  { start: "<{call}:", end: "<}|>" },
  { start: "<tool_call|>", end: "</tool_call|>" },
  { start: "<fn call>", end: "<|end|>" },
];
/** A quote in a delimiter: only the chunking of hostile messages (a raw swap would break their JSON). */
const QUOTED: Delimiters = { start: '<{"call":', end: '<"}>' };

/** The generated messages with the default tags swapped for these (the expected parse swaps alike). */
const swap = (s: string, d: Delimiters) =>
  s.replaceAll("</tool_call>", "\u0001").replaceAll("<tool_call>", d.start).replaceAll("\u0001", d.end);

const swapExpected = (e: Expected, d: Delimiters): Expected =>
  e.kind === "text" ? { kind: "text", text: swap(e.text, d) } : { ...e, arguments: swap(e.arguments, d) };

const sameUnderEveryChunking = (message: string, cutPoints: number[], options: SentinelParserOptions) =>
  assertSameAsOneChunk(message, [[...message], splitAt(message, cutPoints)], options);

const optionsFor = (d: Delimiters) =>
  parserOptions(undefined, { formats: blockFormatsReading(jsonBlockFormat(d)) });

const hostileWith = (d: Delimiters) => {
  const nearMisses = [
    d.start.slice(0, -1),
    d.end.slice(0, -1),
    d.start.slice(0, 2),
    d.end,
    "|",
    "{",
    "}",
    '"',
  ];
  return fc
    .array(
      fc.oneof(
        hostileMessage.map((m) => swap(m, d)),
        fc.constantFrom(...nearMisses),
      ),
      { maxLength: 6 },
    )
    .map((parts) => parts.join(""));
};

describe.each(DELIMITERS)("custom delimiters $start … $end: split anywhere", (d) => {
  const options = optionsFor(d);

  it("gives the expected parse for generated messages in one chunk, 1-char chunks and random splits", {
    timeout: 120_000,
  }, () => {
    fc.assert(
      fc.property(generatedMessage(), cuts, ({ message, expected }, cutPoints) => {
        const whole = sameUnderEveryChunking(swap(message, d), cutPoints, options);
        expect(observed(whole)).toEqual(expected.map((e) => swapExpected(e, d)));
      }),
      { numRuns: 150, seed: SEED },
    );
  });

  it("gives the same events for any chunking of hostile messages with near misses of the delimiters", {
    timeout: 120_000,
  }, () => {
    fc.assert(
      fc.property(hostileWith(d), cuts, (m, cutPoints) => {
        sameUnderEveryChunking(m, cutPoints, options);
      }),
      { numRuns: 150, seed: SEED },
    );
  });
});

describe("custom delimiters holding a quote", () => {
  it("give the same events for any chunking of hostile messages", { timeout: 120_000 }, () => {
    const options = optionsFor(QUOTED);
    let calls = 0;
    fc.assert(
      fc.property(hostileWith(QUOTED), cuts, (m, cutPoints) => {
        calls += sameUnderEveryChunking(m, cutPoints, options).filter(
          (e) => e.type === "tool-call-end",
        ).length;
      }),
      { numRuns: 200, seed: SEED },
    );
    // Not vacuous: blocks in these delimiters were read as calls.
    expect(calls).toBeGreaterThan(0);
  });
});
