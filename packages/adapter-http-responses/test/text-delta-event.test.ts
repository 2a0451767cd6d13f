import { sseFrame } from "@proxy/http-surface";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { responsesEventFrame, TextDeltaEvent } from "../src/response/text-delta-event.js";

describe("response.output_text.delta event", () => {
  it("serialises with the documented keys in wire order, and its frame is the serialised event's", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "binary" }),
        fc.string({ unit: "binary" }),
        fc.nat(),
        fc.nat(),
        (itemId, delta, outputIndex, sequence) => {
          const event = new TextDeltaEvent(itemId, outputIndex, delta, sequence);
          const json = JSON.stringify(event);
          expect(json).toBe(
            JSON.stringify({
              type: "response.output_text.delta",
              item_id: itemId,
              output_index: outputIndex,
              content_index: 0,
              delta,
              logprobs: [],
              sequence_number: sequence,
            }),
          );
          expect(responsesEventFrame(event)).toBe(sseFrame(json, event.type));
        },
      ),
      { numRuns: 500 },
    );
  });
});
