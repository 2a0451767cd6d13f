import { describe, expect, it } from "vitest";
import { type BackendEvent, DEFAULT_TURN_SETTINGS, runTurn } from "../../src/gateway.js";
import { type AssistantEvent, createCountingIdGenerator } from "../../src/index.js";
import { backendStream } from "../../src/ports/backend-stream.js";
import { createScriptedBackend, o200kEncoding } from "../../src/testing/index.js";
import { policyOf } from "../support/tool-policy.js";

/**
 * A kind added to StreamEventFields needs no edit in the turn (docs/core.md, "Adding an event kind"):
 * stood in for here by a kind the union does not have, which is what the turn sees of a new one.
 */
const citation = { type: "citation", url: "https://example.com/a" } as unknown as BackendEvent;

describe("an event kind the turn does not read", () => {
  it("goes from the backend to the surface as it came, in backend order, in both tool modes", async () => {
    for (const nativeTools of [false, true]) {
      const backend = createScriptedBackend(() => ({ chunks: ["Paris is ", "sunny."] }), { nativeTools });
      const stream = backend.stream.bind(backend);
      backend.stream = (request, options) =>
        backendStream(async function* () {
          for await (const e of stream(request, options)) {
            yield [e];
            if (e.type === "text-delta" && e.delta === "Paris is ") yield [citation];
          }
        });
      const handle = runTurn(
        { backend, ids: createCountingIdGenerator(), tokens: o200kEncoding },
        {
          request: {
            model: "m",
            items: [{ type: "message", role: "user", content: [{ type: "text", text: "?" }] }],
          },
          tools: policyOf([{ name: "get_weather", strict: false }]),
          settings: DEFAULT_TURN_SETTINGS,
          signal: new AbortController().signal,
        },
      );
      const events: AssistantEvent[] = [];
      for await (const e of handle.events) events.push(e);
      const kinds = events.map((e) => e.type as string);
      expect(kinds.filter((k) => k !== "usage")).toEqual([
        "stream-start",
        "text-delta",
        "citation",
        "text-delta",
        "finish",
      ]);
      expect(events[kinds.indexOf("citation")]).toBe(citation);
    }
  });
});
