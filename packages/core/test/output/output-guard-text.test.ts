import type { AssistantEvent } from "@proxy/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createOutputGuard } from "../../src/output/output-guard.js";

const SEED = 20261127;
const piece = fc.constantFrom("a", "b", "ab", "END", "EN", "D", " ", "\n", "x", "日本", "😀");
const texts = fc.array(
  fc.array(piece, { minLength: 1, maxLength: 4 }).map((p) => p.join("")),
  {
    minLength: 1,
    maxLength: 30,
  },
);
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

type Step = { readonly text: string } | { readonly call: number };

/** Text and calls (start, two deltas, end) through accept, or through pushText / pushEvent. */
const runMixed = (stops: ReadonlyArray<string>, steps: ReadonlyArray<Step>, viaPush: boolean) => {
  const guard = createOutputGuard({ stopSequences: stops, holdCalls: true });
  const out: AssistantEvent[] = [];
  let stopped = false;
  for (const step of steps) {
    const events: AssistantEvent[] =
      "text" in step
        ? [{ type: "text-delta", delta: step.text }]
        : [
            {
              type: "tool-call-start",
              index: step.call,
              id: `fc_${step.call}`,
              callId: `c${step.call}`,
              name: "f",
            },
            { type: "tool-call-delta", index: step.call, delta: '{"a":' },
            { type: "tool-call-delta", index: step.call, delta: "1}" },
            {
              type: "tool-call-end",
              index: step.call,
              id: `fc_${step.call}`,
              callId: `c${step.call}`,
              name: "f",
              arguments: '{"a":1}',
            },
          ];
    for (const event of events) {
      if (viaPush) {
        stopped =
          event.type === "text-delta" ? guard.pushText(event.delta, out) : guard.pushEvent(event, out);
      } else {
        const result = guard.accept([event]);
        out.push(...result.events);
        stopped = result.stopped;
      }
      if (stopped) return { out, stopped, sequence: guard.sequence };
    }
  }
  out.push(...guard.flush());
  return { out, stopped, sequence: undefined };
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

  it("pushEvent holds and releases calls exactly as accept does, around text and stop sequences (300 runs)", () => {
    const steps = fc.array(
      fc.oneof(
        piece.map((text): Step => ({ text })),
        fc.nat({ max: 3 }).map((call): Step => ({ call })),
      ),
      { maxLength: 20 },
    );
    fc.assert(
      fc.property(stopLists, steps, (stops, list) => {
        const viaPush = runMixed(stops, list, true);
        const viaAccept = runMixed(stops, list, false);
        expect(viaPush.out).toEqual(viaAccept.out);
        expect(viaPush.stopped).toBe(viaAccept.stopped);
      }),
      { numRuns: 300, seed: SEED + 1 },
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
