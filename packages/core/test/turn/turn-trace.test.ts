import { describe, expect, it } from "vitest";
import { DEFAULT_TURN_SETTINGS, runTurn, type TurnTrace } from "../../src/gateway.js";
import { type AssistantEvent, createCountingIdGenerator, type ToolSpec } from "../../src/index.js";
import { createScriptedBackend, o200kEncoding } from "../../src/testing/index.js";
import { policyOf } from "../support/tool-policy.js";

const strictWeather: ToolSpec = {
  name: "get_weather",
  parameters: {
    type: "object",
    properties: { city: { type: "string" } },
    required: ["city"],
    additionalProperties: false,
  },
  strict: true,
};
const call = (args: string) =>
  `<tool_call>${JSON.stringify({ name: "get_weather", arguments: args })}</tool_call>`;

/** A trace that writes down what it is told, as the request inspector would. */
const recordingTrace = () => {
  const seen: string[] = [];
  const raw: string[] = [];
  const batches: AssistantEvent[][] = [];
  const trace: TurnTrace = {
    onBackendRequest: (request, attempt) =>
      void seen.push(`request ${attempt} ${request.tools ? "native" : "prompt"}`),
    onBackendEvent: (event) => {
      if (event.type === "text-delta") raw.push(event.delta);
    },
    onParserEvent: (event) =>
      void seen.push(
        event.type === "tool-call-rejected" ? `rejected ${event.reason} strict=${event.strict}` : event.type,
      ),
    onAttemptEnd: (end, attempt) =>
      void seen.push(`end ${attempt} ${end.violation?.kind ?? end.finish?.reason ?? end.error?.kind}`),
    onAssistantBatch: (batch) => void batches.push([...batch]),
  };
  return { trace, seen, raw, batches };
};

describe("the turn trace (request inspector hook)", () => {
  it("sees both attempts of a corrective turn: what was sent, the raw text, the parser's decisions", async () => {
    const backend = createScriptedBackend([
      { chunks: ["Let me see. ", call('{"city":42}')] },
      { chunks: [call('{"city":"Paris"}')] },
    ]);
    const { trace, seen, raw, batches } = recordingTrace();
    const handle = runTurn(
      { backend, ids: createCountingIdGenerator(), tokens: o200kEncoding },
      {
        request: {
          model: "m",
          items: [{ type: "message", role: "user", content: [{ type: "text", text: "Weather?" }] }],
        },
        tools: policyOf([strictWeather]),
        settings: DEFAULT_TURN_SETTINGS,
        signal: new AbortController().signal,
        trace,
      },
    );
    const events: AssistantEvent[] = [];
    for await (const e of handle.events) events.push(e);

    expect(seen).toEqual([
      "request 0 prompt",
      // A strict call is checked whole before it starts: it is rejected, never opened.
      "rejected schema-mismatch strict=true",
      "end 0 tool_call_validation_failed",
      "request 1 prompt",
      "tool-call-start",
      "tool-call-delta",
      "tool-call-end",
      "end 1 stop",
    ]);
    expect(raw.join("")).toBe(`Let me see. ${call('{"city":42}')}${call('{"city":"Paris"}')}`);
    // The trace saw exactly what the surface was handed.
    expect(batches.flat()).toEqual(events);
  });
});
