import { describe, expect, it } from "vitest";
import { DEFAULT_TURN_SETTINGS, runTurn, type TurnSettings } from "../../src/gateway.js";
import {
  type AssistantEvent,
  createCountingIdGenerator,
  GatewayError,
  type ToolPolicy,
  type ToolSpec,
} from "../../src/index.js";
import { createScriptedBackend, o200kEncoding, type Script } from "../../src/testing/index.js";
import { policyOf } from "../support/tool-policy.js";

const weatherTool: ToolSpec = {
  name: "get_weather",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  strict: false,
};
const timeTool: ToolSpec = {
  name: "get_time",
  parameters: { type: "object", properties: {} },
  strict: false,
};
const call = (name: string, args: string) =>
  `<tool_call>${JSON.stringify({ name, arguments: args })}</tool_call>`;

const run = async (script: Script, tools: ToolPolicy, settings: Partial<TurnSettings> = {}) => {
  const backend = createScriptedBackend(script);
  const handle = runTurn(
    { backend, ids: createCountingIdGenerator(), tokens: o200kEncoding },
    {
      request: {
        model: "m",
        items: [{ type: "message", role: "user", content: [{ type: "text", text: "Weather in Paris?" }] }],
      },
      tools,
      settings: { ...DEFAULT_TURN_SETTINGS, ...settings },
      signal: new AbortController().signal,
    },
  );
  const events: AssistantEvent[] = [];
  for await (const e of handle.events) events.push(e);
  return { events, backend, telemetry: handle.telemetry() };
};

const text = (events: AssistantEvent[]) =>
  events.flatMap((e) => (e.type === "text-delta" ? [e.delta] : [])).join("");
const calls = (events: AssistantEvent[]) => events.flatMap((e) => (e.type === "tool-call-end" ? [e] : []));
const finish = (events: AssistantEvent[]) => events.filter((e) => e.type === "finish");
const policy = (extra: Partial<ToolPolicy> = {}) => policyOf([weatherTool, timeTool], extra);

describe("runTurn", () => {
  it("refuses a tool whose schema is false (soft too) before the backend is asked", async () => {
    const never = { name: "never", strict: false, parameters: false } as unknown as ToolSpec;
    const { events, backend } = await run([{ chunks: ["unused"] }], policyOf([weatherTool, never]));
    expect(events).toEqual([
      {
        type: "error",
        error: expect.objectContaining({
          kind: "invalid_request",
          message: "Invalid schema for function 'never': the schema is `false`, which no arguments satisfy.",
        }),
      },
    ]);
    expect(backend.requests).toHaveLength(0);
  });

  it("passes plain text through and finishes with stop", async () => {
    const { events } = await run([{ chunks: ["Hel", "lo <b>", " there"] }], policy());
    expect(events[0]?.type).toBe("stream-start");
    expect(text(events)).toBe("Hello <b> there");
    expect(finish(events)).toEqual([{ type: "finish", finish: { reason: "stop", raw: "completed" } }]);
  });

  it("streams a call split across chunks as start/deltas/end with ids, finish tool_calls", async () => {
    const block = call("get_weather", '{"city":"Paris"}');
    const { events, telemetry } = await run(
      [{ chunks: ["Checking. ", block.slice(0, 30), block.slice(30)] }],
      policy(),
    );
    expect(text(events)).toBe("Checking. ");
    const [c] = calls(events);
    expect(c).toMatchObject({
      index: 0,
      id: "fc_1",
      callId: "call_1",
      name: "get_weather",
      arguments: '{"city":"Paris"}',
    });
    const deltas = events.flatMap((e) => (e.type === "tool-call-delta" ? [e.delta] : [])).join("");
    expect(deltas).toBe('{"city":"Paris"}');
    expect(finish(events)[0]).toMatchObject({ finish: { reason: "tool_calls" } });
    expect(telemetry).toMatchObject({ callsEmitted: 1, callsDetected: 1 });
  });

  it("stop-after-tools (burst) keeps every call of the burst and drops trailing text", async () => {
    const chunks = [
      call("get_weather", '{"city":"A"}'),
      "\n",
      call("get_time", "{}"),
      "\nDone! I called them.",
    ];
    const { events, telemetry } = await run([{ chunks }], policy());
    expect(calls(events).map((c) => [c.index, c.name])).toEqual([
      [0, "get_weather"],
      [1, "get_time"],
    ]);
    expect(text(events)).toBe("");
    expect(telemetry.stoppedEarly).toBe(true);
  });

  it("keeps trailing text when stop-after-tools is off", async () => {
    const chunks = [call("get_time", "{}"), " All done."];
    const { events } = await run([{ chunks }], policy(), { stopAfterTools: false });
    expect(text(events)).toBe("All done.");
  });

  it("parallel_tool_calls:false emits at most one call", async () => {
    const chunks = [call("get_weather", '{"city":"A"}'), call("get_time", "{}")];
    const { events, telemetry } = await run(
      [{ chunks }],
      policy({ parallel: false, parallelDefaulted: false }),
    );
    expect(calls(events)).toHaveLength(1);
    expect(telemetry.truncated).toBe(true);
  });

  it("drops a block identical to an earlier one (dedup)", async () => {
    const b = call("get_weather", '{"city":"A"}');
    const { events, telemetry } = await run(
      [{ chunks: [b, b, call("get_weather", '{"city":"B"}')] }],
      policy(),
    );
    expect(calls(events).map((c) => c.arguments)).toEqual(['{"city":"A"}', '{"city":"B"}']);
    expect(calls(events).map((c) => c.index)).toEqual([0, 1]);
    expect(telemetry.deduped).toBe(1);
  });

  it("tool_choice none never emits calls", async () => {
    const { events } = await run(
      [{ chunks: ["Sure. ", call("get_time", "{}")] }],
      policy({ choice: { type: "none" } }),
    );
    expect(calls(events)).toHaveLength(0);
    expect(finish(events)[0]).toMatchObject({ finish: { reason: "stop" } });
  });

  it("tool_choice required: a text-only answer gets one corrective turn, held text is dropped", async () => {
    const { events, backend, telemetry } = await run(
      [{ chunks: ["I think it is sunny."] }, { chunks: [call("get_weather", '{"city":"Paris"}')] }],
      policy({ choice: { type: "required" } }),
    );
    expect(text(events)).toBe("");
    expect(calls(events)).toHaveLength(1);
    expect(telemetry.retries).toBe(1);
    const correction = backend.requests[1]?.input.map((p) => (p.type === "text" ? p.text : "")).join("");
    expect(correction).toContain("did not call any function");
    expect(backend.requests[1]?.history.at(-1)).toEqual({
      role: "assistant",
      content: [{ type: "text", text: "I think it is sunny." }],
    });
  });

  it("forced tool_choice still unmet after the retry is a tool_choice_not_satisfied error", async () => {
    const { events } = await run(
      [{ chunks: [call("get_time", "{}")] }],
      policy({ choice: { type: "tool", name: "get_weather" } }),
    );
    expect(events.at(-1)).toMatchObject({ type: "error", error: { kind: "tool_choice_not_satisfied" } });
    expect(calls(events)).toHaveLength(0);
  });

  it("a strict call failing its schema is retried, then emitted when valid", async () => {
    const strict = policyOf([{ ...weatherTool, strict: true }]);
    const { events, telemetry } = await run(
      [
        { chunks: [call("get_weather", '{"town":"Paris"}')] },
        { chunks: [call("get_weather", '{"city":"Paris"}')] },
      ],
      strict,
    );
    expect(calls(events).map((c) => c.arguments)).toEqual(['{"city":"Paris"}']);
    expect(telemetry).toMatchObject({ strictFailures: 1, retries: 1 });
  });

  it("a corrective attempt does not resend text the client already has", async () => {
    const strict = policyOf([{ ...weatherTool, strict: true }]);
    const { events } = await run(
      [
        { chunks: ["Checking the ", "weather. ", call("get_weather", "{}")] },
        { chunks: ["Checking the weather. ", "Now properly: ", call("get_weather", '{"city":"Paris"}')] },
      ],
      strict,
    );
    expect(text(events)).toBe("Checking the weather. Now properly: ");
    expect(calls(events)).toHaveLength(1);
  });

  it("refuses a strict tool whose schema cannot be compiled, before calling the backend", async () => {
    const broken = policyOf([
      { name: "f", strict: true, parameters: { type: "object", properties: { a: { type: "nonsense" } } } },
    ]);
    const { events, backend } = await run([{ chunks: ["x"] }], broken);
    expect(events).toEqual([
      { type: "error", error: expect.objectContaining({ kind: "invalid_request", param: "tools" }) },
    ]);
    expect(backend.requests).toHaveLength(0);
  });

  it("reports a failure before the stream started as a lone error event", async () => {
    const { events } = await run(
      [{ chunks: [], startError: new GatewayError("overloaded", "busy") }],
      policy(),
    );
    expect(events).toEqual([{ type: "error", error: expect.objectContaining({ kind: "overloaded" }) }]);
  });

  it("times out an idle backend with a timeout error", async () => {
    const { events } = await run([{ chunks: ["a", "b"], hangAfterChunks: 1 }], policy(), {
      idleTimeoutMs: 50,
    });
    expect(events.at(-1)).toMatchObject({ type: "error", error: { kind: "timeout" } });
  });

  it("ends a turn that outlives its request deadline with a timeout error, even while it streams", async () => {
    const chunks = Array.from({ length: 40 }, (_, i) => `w${i} `);
    const { events } = await run([{ chunks, delayMs: 20 }], policy(), {
      requestTimeoutMs: 150,
      idleTimeoutMs: 1000,
    });
    expect(events.at(-1)).toMatchObject({
      type: "error",
      error: { kind: "timeout", message: expect.stringContaining("request timeout") },
    });
    expect(text(events).length).toBeGreaterThan(0);
  });

  it("renders history, tool results and the manifest for the backend", async () => {
    const backend = createScriptedBackend([{ chunks: ["ok"] }]);
    const handle = runTurn(
      { backend, ids: createCountingIdGenerator(), tokens: o200kEncoding },
      {
        request: {
          model: "m",
          instructions: "Be brief.",
          items: [
            { type: "message", role: "system", content: [{ type: "text", text: "You are Copilot." }] },
            { type: "message", role: "user", content: [{ type: "text", text: "Weather?" }] },
            { type: "tool-call", callId: "call_A", name: "get_weather", arguments: '{"city":"Paris"}' },
            { type: "tool-result", callId: "call_A", output: "Sunny" },
          ],
        },
        tools: policy(),
        settings: DEFAULT_TURN_SETTINGS,
        signal: new AbortController().signal,
      },
    );
    for await (const _ of handle.events);
    const req = backend.requests[0]!;
    expect(req.instructions).toContain("Be brief.");
    expect(req.instructions).toContain("You are Copilot.");
    expect(req.instructions).toContain("<tool_call>");
    expect(req.instructions).toContain("get_weather");
    expect(req.history).toEqual([
      { role: "user", content: [{ type: "text", text: "Weather?" }] },
      { role: "assistant", content: [{ type: "text", text: call("get_weather", '{"city":"Paris"}') }] },
    ]);
    expect(req.input).toEqual([
      { type: "text", text: '[function_call_output call_id="call_A" output="Sunny"]' },
    ]);
    expect(handle.telemetry().echoedCalls).toBe(1);
  });
});
