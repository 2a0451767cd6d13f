import type { AssistantEvent } from "@proxy/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createOutputGuard } from "../../src/output/output-guard.js";

const SEED = 20261127;
const piece = fc.constantFrom("a", "b", "ab", "END", "EN", "D", " ", "\n", "x", "日本", "😀");
const texts = fc.array(fc.array(piece, { minLength: 1, maxLength: 4 }).map((p) => p.join("")), {
  minLength: 1,
  maxLength: 30,
});
const stopLists = fc.constantFrom<ReadonlyArray<string>>([], ["END"], ["ab", "b\n"], ["x", "日本😀"]);

/** Feeds the deltas one way or the other; what the client would see, and how it stopped. */
const run = (stops: ReadonlyArray<string>, deltas: ReadonlyArray<string>, viaPushText: boolean) => {
  const guard = createOutputGuard({ stopSequences: stops });
  const out: AssistantEvent[] = [];
  for (const delta of deltas) {
    if (viaPushText) {
      if (guard.pushText(delta, out)) return { out, sequence: guard.sequence };
      continue;
    }
    const result = guard.accept([{ type: "text-delta", delta }]);
    out.push(...result.events);
    if (result.stopped) return { out, sequence: result.sequence };
  }
  out.push(...guard.flush());
  return { out, sequence: undefined };
};

describe("output guard: pushText", () => {
  it("lets through exactly what accept does for text, and stops at the same sequence (300 runs)", () => {
    fc.assert(
      fc.property(stopLists, texts, (stops, deltas) => {
        expect(run(stops, deltas, true)).toEqual(run(stops, deltas, false));
      }),
      { numRuns: 300, seed: SEED },
    );
  });

  it("without stop sequences passes each delta through as one text-delta", () => {
    const guard = createOutputGuard({});
    const out: AssistantEvent[] = [];
    expect(guard.pushText("Hel", out)).toBe(false);
    expect(guard.pushText("lo", out)).toBe(false);
    expect(out).toEqual([
      { type: "text-delta", delta: "Hel" },
      { type: "text-delta", delta: "lo" },
    ]);
    expect(guard.flush()).toEqual([]);
    expect(guard.pushText("late", out)).toBe(true);
  });
});
