import type { BackendEvent } from "@proxy/core/gateway";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createToolCallAccumulator } from "../src/tool-call-accumulator.js";

type Delta = Parameters<ReturnType<typeof createToolCallAccumulator>["push"]>[0][number];

const run = (chunks: ReadonlyArray<ReadonlyArray<Delta>>) => {
  const acc = createToolCallAccumulator((i) => `call_fallback_${i}`);
  return [...chunks.flatMap((c) => acc.push(c)), ...acc.flush()];
};

describe("native tool_calls accumulator", () => {
  it("streams start, argument deltas, then the complete call; interleaved calls keep their index", () => {
    expect(
      run([
        [{ index: 0, id: "call_a", function: { name: "get_weather", arguments: "" } }],
        [{ index: 0, function: { arguments: '{"city":' } }],
        [{ index: 1, id: "call_b", function: { name: "get_time", arguments: "{}" } }],
        [{ index: 0, function: { arguments: '"Paris"}' } }],
      ]),
    ).toEqual<BackendEvent[]>([
      { type: "tool-call-start", callId: "call_a", name: "get_weather" },
      { type: "tool-call-delta", callId: "call_a", delta: '{"city":' },
      { type: "tool-call-start", callId: "call_b", name: "get_time" },
      { type: "tool-call-delta", callId: "call_b", delta: "{}" },
      { type: "tool-call-delta", callId: "call_a", delta: '"Paris"}' },
      { type: "tool-call-end", callId: "call_a", name: "get_weather", arguments: '{"city":"Paris"}' },
      { type: "tool-call-end", callId: "call_b", name: "get_time", arguments: "{}" },
    ]);
  });

  it("gives an id to a call without one, takes the first name only, and a call with no arguments gets {}", () => {
    expect(
      run([
        [{ index: 0, function: { name: "ping" } }],
        [{ index: 0, function: { name: "ping", arguments: "" } }],
      ]),
    ).toEqual<BackendEvent[]>([
      { type: "tool-call-start", callId: "call_fallback_0", name: "ping" },
      { type: "tool-call-end", callId: "call_fallback_0", name: "ping", arguments: "{}" },
    ]);
  });

  it("the deltas of a call always add up to its final arguments, however they are split", () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 40 }),
        fc.array(fc.nat({ max: 40 }), { maxLength: 8 }),
        (args, cuts) => {
          const at = [...new Set(cuts.map((c) => c % (args.length + 1)))].sort((a, b) => a - b);
          const pieces: string[] = [];
          let from = 0;
          for (const c of [...at, args.length]) {
            pieces.push(args.slice(from, c));
            from = c;
          }
          const events = run([
            [{ index: 0, id: "call_x", function: { name: "f" } }],
            ...pieces.map((p) => [{ index: 0, function: { arguments: p } }]),
          ]);
          const streamed = events.flatMap((e) => (e.type === "tool-call-delta" ? [e.delta] : [])).join("");
          const final = events.find((e) => e.type === "tool-call-end");
          expect(final).toMatchObject({ arguments: args === "" ? "{}" : args });
          expect(final?.type === "tool-call-end" && final.arguments.startsWith(streamed)).toBe(true);
        },
      ),
    );
  });
});
