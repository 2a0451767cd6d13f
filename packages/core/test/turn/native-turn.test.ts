import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type BackendEvent,
  DEFAULT_TURN_SETTINGS,
  runTurn,
  type ToolMode,
  type TurnSettings,
} from "../../src/gateway.js";
import {
  type AssistantEvent,
  type ConversationItem,
  createCountingIdGenerator,
  type ToolPolicy,
  type ToolSpec,
} from "../../src/index.js";
import type { ParserEvent } from "../../src/parser/parser-types.js";
import { backendStream } from "../../src/ports/backend-stream.js";
import {
  createScriptedBackend,
  o200kEncoding,
  type Script,
  type ScriptedToolCall,
} from "../../src/testing/index.js";
import { createNativeCallReader, type ReadEvent } from "../../src/turn/native-calls.js";
import { policyOf } from "../support/tool-policy.js";

const weatherTool: ToolSpec = {
  name: "get_weather",
  description: "Current weather",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  strict: false,
};
const strictTool: ToolSpec = {
  name: "book",
  strict: true,
  parameters: {
    type: "object",
    properties: { seat: { type: "string" } },
    required: ["seat"],
    additionalProperties: false,
  },
};
const policy = (extra: Partial<ToolPolicy> = {}) => policyOf([weatherTool, strictTool], extra);
const ask: ConversationItem = {
  type: "message",
  role: "user",
  content: [{ type: "text", text: "Weather?" }],
};

const run = async (
  script: Script,
  tools: ToolPolicy,
  options: {
    settings?: Partial<TurnSettings>;
    items?: ConversationItem[];
    nativeTools?: boolean;
    mode?: ToolMode;
  } = {},
) => {
  const backend = createScriptedBackend(script, { nativeTools: options.nativeTools ?? true });
  const handle = runTurn(
    { backend, ids: createCountingIdGenerator(), tokens: o200kEncoding },
    {
      request: { model: "m", items: options.items ?? [ask] },
      tools,
      settings: { ...DEFAULT_TURN_SETTINGS, toolMode: options.mode ?? "auto", ...options.settings },
      signal: new AbortController().signal,
    },
  );
  const events: AssistantEvent[] = [];
  for await (const e of handle.events) events.push(e);
  return { events, backend, telemetry: handle.telemetry() };
};

const ends = (events: AssistantEvent[]) => events.flatMap((e) => (e.type === "tool-call-end" ? [e] : []));
const text = (events: AssistantEvent[]) =>
  events.flatMap((e) => (e.type === "text-delta" ? [e.delta] : [])).join("");
const weather = (callId: string, city: string, chunks?: string[]): ScriptedToolCall => ({
  callId,
  name: "get_weather",
  arguments: JSON.stringify({ city }),
  chunks,
});

describe("tool mode choice", () => {
  it("auto is native when the backend can and tools are offered; prompt otherwise", async () => {
    const native = await run([{ chunks: "hi" }], policy());
    expect(native.telemetry.toolMode).toBe("native");
    expect(native.backend.requests[0]?.tools?.tools.map((t) => t.name)).toEqual(["get_weather", "book"]);
    expect(native.backend.requests[0]?.instructions).not.toContain("<tool_call>");

    const promptOnly = await run([{ chunks: "hi" }], policy(), { nativeTools: false });
    expect(promptOnly.telemetry.toolMode).toBe("prompt");
    expect(promptOnly.backend.requests[0]?.tools).toBeUndefined();
    expect(promptOnly.backend.requests[0]?.instructions).toContain("<tool_call>");

    const noTools = await run([{ chunks: "hi" }], policyOf([]));
    expect(noTools.telemetry.toolMode).toBe("prompt");
  });

  it("prompt is pinned on request, and native fails clearly on a backend without it", async () => {
    const pinned = await run([{ chunks: "hi" }], policy(), { mode: "prompt" });
    expect(pinned.backend.requests[0]?.tools).toBeUndefined();
    const refused = await run([{ chunks: "hi" }], policy(), { mode: "native", nativeTools: false });
    expect(refused.backend.requests).toHaveLength(0);
    expect(refused.events).toHaveLength(1);
    expect(refused.events[0]).toMatchObject({
      type: "error",
      error: { kind: "invalid_request", param: "x-proxy-tool-mode", code: "native_tools_unavailable" },
    });
  });
});

describe("native history", () => {
  it("keeps earlier calls and outputs native; outputs alone start the turn", async () => {
    const items: ConversationItem[] = [
      { type: "message", role: "system", content: [{ type: "text", text: "Be brief." }] },
      ask,
      { type: "tool-call", callId: "call_a", name: "get_weather", arguments: '{"city":"Paris"}' },
      { type: "tool-call", callId: "call_b", name: "get_weather", arguments: '{"city":"Oslo"}' },
      { type: "tool-result", callId: "call_a", output: "Sunny" },
      { type: "tool-result", callId: "call_b", output: "Rain" },
    ];
    const { backend, telemetry } = await run([{ chunks: "Sunny and rain." }], policy(), { items });
    const req = backend.requests[0];
    expect(req?.input).toEqual([]);
    expect(req?.instructions).toContain("Be brief.");
    expect(req?.history).toEqual([
      { role: "user", content: [{ type: "text", text: "Weather?" }] },
      {
        role: "assistant",
        toolCalls: [
          { callId: "call_a", name: "get_weather", arguments: '{"city":"Paris"}' },
          { callId: "call_b", name: "get_weather", arguments: '{"city":"Oslo"}' },
        ],
      },
      { role: "tool", callId: "call_a", output: "Sunny" },
      { role: "tool", callId: "call_b", output: "Rain" },
    ]);
    expect(telemetry.echoedCalls).toBe(2);
  });
});

describe("native calls through the gate", () => {
  it("a lone call keeps the model's call id and arguments; finish is tool_calls", async () => {
    const { events } = await run([{ chunks: [], toolCalls: [weather("call_up_1", "Paris")] }], policy());
    expect(ends(events)).toEqual([
      expect.objectContaining({ callId: "call_up_1", name: "get_weather", arguments: '{"city":"Paris"}' }),
    ]);
    expect(events.at(-1)).toMatchObject({ type: "finish", finish: { reason: "tool_calls" } });
  });

  it("streams a soft call's argument deltas as they come", async () => {
    const call = weather("call_s", "Lima", ['{"ci', 'ty":"Li', 'ma"}']);
    const { events } = await run([{ chunks: "Let me look. ", toolCalls: [call] }], policy());
    const deltas = events.flatMap((e) => (e.type === "tool-call-delta" ? [e.delta] : []));
    expect(deltas).toEqual(['{"ci', 'ty":"Li', 'ma"}']);
    expect(text(events)).toBe("Let me look. ");
  });

  it("parallel_tool_calls:false keeps only the first call", async () => {
    const three = [weather("c1", "A"), weather("c2", "B"), weather("c3", "C")];
    const { events, telemetry } = await run(
      [{ chunks: [], toolCalls: three }],
      policy({ parallel: false, parallelDefaulted: false }),
    );
    expect(ends(events).map((e) => e.callId)).toEqual(["c1"]);
    expect(telemetry.truncated).toBe(true);
  });

  it("tool_choice none drops calls the model makes anyway", async () => {
    const { events, backend } = await run(
      [{ chunks: "No tools.", toolCalls: [weather("c1", "A")] }],
      policy({ choice: { type: "none" } }),
    );
    expect(ends(events)).toEqual([]);
    expect(text(events)).toBe("No tools.");
    expect(backend.requests[0]?.tools?.choice).toEqual({ type: "none" });
    expect(events.at(-1)).toMatchObject({ type: "finish", finish: { reason: "stop" } });
  });

  it("required: an answer without calls gets one corrective turn, then the call", async () => {
    const { events, backend, telemetry } = await run(
      [{ chunks: "Just text." }, { chunks: [], toolCalls: [weather("c9", "Rome")] }],
      policy({ choice: { type: "required" } }),
    );
    expect(telemetry.retries).toBe(1);
    expect(text(events)).toBe("");
    expect(ends(events).map((e) => e.callId)).toEqual(["c9"]);
    const corrective = backend.requests[1];
    expect(corrective?.tools).toBeDefined();
    expect(JSON.stringify(corrective?.input)).toContain("did not call any function");
    expect(backend.requests[0]?.instructions).toContain("You MUST call at least one function");
  });

  it("forced: only the forced tool is offered; calling another is a violation", async () => {
    const forced = policy({ choice: { type: "tool", name: "book" } });
    const { events, backend } = await run(
      [
        { chunks: [], toolCalls: [weather("c1", "A")] },
        { chunks: [], toolCalls: [{ callId: "c2", name: "book", arguments: '{"seat":"1A"}' }] },
      ],
      forced,
    );
    expect(backend.requests[0]?.tools?.tools.map((t) => t.name)).toEqual(["book"]);
    expect(ends(events).map((e) => [e.callId, e.name])).toEqual([["c2", "book"]]);
  });

  it("strict: invalid arguments get the corrective turn; still invalid fails with the validation error", async () => {
    const bad = { callId: "c1", name: "book", arguments: '{"seat":1}' };
    const recovered = await run(
      [
        { chunks: [], toolCalls: [bad] },
        { chunks: [], toolCalls: [{ ...bad, arguments: '{"seat":"2B"}' }] },
      ],
      policy(),
    );
    expect(ends(recovered.events).map((e) => e.arguments)).toEqual(['{"seat":"2B"}']);
    expect(recovered.telemetry.strictFailures).toBe(1);

    const failed = await run([{ chunks: [], toolCalls: [bad] }], policy());
    expect(failed.events.at(-1)).toMatchObject({
      type: "error",
      error: { kind: "tool_call_validation_failed" },
    });
  });

  it("an unknown tool's call is dropped; soft arguments are repaired (only what is missing is added)", async () => {
    const { events, telemetry } = await run(
      [
        {
          chunks: [],
          toolCalls: [
            { callId: "u1", name: "launch_rockets", arguments: "{}" },
            { callId: "r1", name: "get_weather", arguments: '{"city":"Paris"' },
          ],
        },
      ],
      policy(),
    );
    expect(ends(events).map((e) => [e.callId, e.arguments])).toEqual([["r1", '{"city":"Paris"}']]);
    expect(telemetry.repairs).toBe(1);
  });

  it("stop-after-tools: text after the calls is not forwarded", async () => {
    const script: Script = () => ({ chunks: [], toolCalls: [weather("c1", "A")] });
    const backend = createScriptedBackend(script, { nativeTools: true });
    // Text after a call arrives as its own event: the gate stops the turn at it.
    const stream = backend.stream.bind(backend);
    backend.stream = (request, options) =>
      backendStream(async function* () {
        for await (const e of stream(request, options)) {
          yield [e];
          if (e.type === "tool-call-end")
            yield [{ type: "text-delta", delta: "And more words." } as BackendEvent];
        }
      });
    const handle = runTurn(
      { backend, ids: createCountingIdGenerator(), tokens: o200kEncoding },
      {
        request: { model: "m", items: [ask] },
        tools: policy(),
        settings: { ...DEFAULT_TURN_SETTINGS, stopGraceMs: 0 },
        signal: new AbortController().signal,
      },
    );
    const events: AssistantEvent[] = [];
    for await (const e of handle.events) events.push(e);
    expect(text(events)).toBe("");
    expect(handle.telemetry().stoppedEarly).toBe(true);
    expect(events.at(-1)).toMatchObject({ type: "finish", finish: { reason: "tool_calls" } });
  });
});

/** Reader output normalised: text merged, calls by id with their final arguments. */
const summarise = (events: ReadonlyArray<ParserEvent>) => {
  let text = "";
  const calls: string[] = [];
  let open = 0;
  for (const e of events) {
    if (e.type === "text-delta") {
      expect(open).toBe(0); // never text inside a call
      text += e.delta;
    } else if (e.type === "tool-call-start") open++;
    else if (e.type === "tool-call-end") {
      open--;
      calls.push(`${e.name}:${e.arguments}`);
    }
  }
  return { text, calls };
};

describe("native call reader", () => {
  const tools = new Map(policy().tools.map((t) => [t.name, t]));

  it("never interleaves calls or text, whatever order the backend sends them in", () => {
    const piece = fc.string({ maxLength: 4 });
    fc.assert(
      fc.property(
        fc.array(fc.record({ city: fc.string({ maxLength: 6 }), streamed: fc.boolean() }), { maxLength: 4 }),
        fc.array(piece, { maxLength: 4 }),
        fc.infiniteStream(fc.nat()),
        (calls, texts, picks) => {
          // Per source, its own events in order; sources are merged in an arbitrary order.
          const sources: ReadEvent[][] = calls.map((c, i) => {
            const args = JSON.stringify({ city: c.city });
            const callId = `c${i}`;
            const cut = Math.floor(args.length / 2);
            return c.streamed
              ? [
                  { type: "tool-call-start", callId, name: "get_weather" },
                  { type: "tool-call-delta", callId, delta: args.slice(0, cut) },
                  { type: "tool-call-delta", callId, delta: args.slice(cut) },
                  { type: "tool-call-end", callId, name: "get_weather", arguments: args },
                ]
              : [{ type: "tool-call-end", callId, name: "get_weather", arguments: args }];
          });
          sources.push(texts.map((delta) => ({ type: "text-delta", delta })));
          const reader = createNativeCallReader({ tools });
          const out: ParserEvent[] = [];
          const it = picks[Symbol.iterator]();
          while (sources.some((s) => s.length > 0)) {
            const live = sources.filter((s) => s.length > 0);
            const source = live[(it.next().value as number) % live.length] as ReadEvent[];
            out.push(...reader.push(source.shift() as ReadEvent));
          }
          out.push(...reader.flush());
          const got = summarise(out);
          expect(got.text).toBe(texts.join(""));
          expect([...got.calls].sort()).toEqual(
            calls.map((c) => `get_weather:${JSON.stringify({ city: c.city })}`).sort(),
          );
        },
      ),
      { numRuns: 300 },
    );
  });
});
