import {
  type AssistantEvent,
  createCountingIdGenerator,
  createSchemaCache,
  type ToolPolicy,
} from "@proxy/core";
import { DEFAULT_TURN_SETTINGS, runTurn } from "@proxy/core/gateway";
import { createScriptedBackend, o200kEncoding } from "@proxy/core/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createMessageAccumulator } from "../src/response/message-accumulator.js";
import { createMessageEncoder } from "../src/response/message-encoder.js";
import { checkMessagesStream } from "../src/testing/index.js";
import { toolBlock } from "./support/scripts.js";

const schemas = createSchemaCache();

const POLICY: ToolPolicy = {
  tools: [
    {
      name: "get_weather",
      parameters: { type: "object", properties: { city: { type: "string" } } },
      strict: false,
    },
  ],
  choice: { type: "auto" },
  parallel: true,
};

/** The backend's whole reply cut at the given offsets into text deltas. */
const cut = (text: string, offsets: ReadonlyArray<number>): string[] => {
  const points = [...new Set(offsets.map((o) => o % (text.length + 1)))].sort((a, b) => a - b);
  const out: string[] = [];
  let from = 0;
  for (const p of points) {
    out.push(text.slice(from, p));
    from = p;
  }
  out.push(text.slice(from));
  return out;
};

/** Runs one turn over the scripted backend and encodes it: the frames a client would read. */
const encodeTurn = async (chunks: string[], reasoning: string[]) => {
  const backend = createScriptedBackend([{ chunks, reasoning }]);
  const handle = runTurn(
    { backend, ids: createCountingIdGenerator(), schemas, tokens: o200kEncoding },
    {
      request: {
        model: "m",
        items: [{ type: "message", role: "user", content: [{ type: "text", text: "hi" }] }],
      },
      tools: POLICY,
      settings: { ...DEFAULT_TURN_SETTINGS, stopAfterTools: false, stopGraceMs: 0 },
      signal: new AbortController().signal,
    },
  );
  const encoder = createMessageEncoder({ id: "msg_1", model: "m" });
  const accumulator = createMessageAccumulator();
  const frames: Array<{ event: string; data: string }> = [];
  for await (const event of handle.events as AsyncIterable<AssistantEvent>)
    for (const e of encoder.push(event)) {
      frames.push({ event: e.type, data: JSON.stringify(e) });
      accumulator.add(e);
    }
  return { frames, folded: accumulator.message() };
};

const segment = fc.oneof(
  fc.string({ maxLength: 12 }).filter((s) => !s.includes("<")),
  fc
    .constantFrom("Paris", "Zürich", 'a "quoted" city', "東京", "line\nbreak")
    .map((city) => toolBlock("get_weather", { city })),
);

describe("split anywhere: the stream grammar holds and the message does not depend on the cuts", () => {
  it("text, reasoning and tool blocks cut at arbitrary offsets", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(segment, { minLength: 1, maxLength: 6 }),
        fc.array(fc.nat(), { maxLength: 12 }),
        fc.array(fc.string({ minLength: 1, maxLength: 6 }), { maxLength: 3 }),
        async (segments, offsets, reasoning) => {
          const text = segments.join("");
          const whole = await encodeTurn([text], reasoning);
          const split = await encodeTurn(cut(text, offsets), reasoning);
          const checked = checkMessagesStream(split.frames);
          expect(checked.kind).toBe("message");
          if (checked.kind !== "message") return;
          expect(checked.message.content).toEqual(whole.folded?.content);
          // The non-stream body is folded from the same events and agrees with the validator.
          expect(split.folded?.content).toEqual(checked.message.content);
          expect(split.folded?.stop_reason).toBe(checked.message.stop_reason);
        },
      ),
      { numRuns: 150 },
    );
  });
});
