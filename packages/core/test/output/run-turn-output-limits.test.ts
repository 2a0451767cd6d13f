import { describe, expect, it } from "vitest";
import { DEFAULT_TURN_SETTINGS, runTurn } from "../../src/gateway.js";
import {
  type AssistantEvent,
  countTokens,
  createCountingIdGenerator,
  type ToolSpec,
  type TurnRequest,
} from "../../src/index.js";
import { createScriptedBackend, o200kEncoding, type Script } from "../../src/testing/index.js";
import { policyOf } from "../support/tool-policy.js";

const weatherTool: ToolSpec = {
  name: "get_weather",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  strict: false,
};
const block = (args: object) =>
  `<tool_call>${JSON.stringify({ name: "get_weather", arguments: JSON.stringify(args) })}</tool_call>`;

const run = async (script: Script, limits: Pick<TurnRequest, "stopSequences" | "maxOutputTokens">) => {
  const backend = createScriptedBackend(script);
  const handle = runTurn(
    { backend, ids: createCountingIdGenerator(), tokens: o200kEncoding },
    {
      request: {
        model: "m",
        items: [{ type: "message", role: "user", content: [{ type: "text", text: "Weather?" }] }],
        ...limits,
      },
      tools: policyOf([weatherTool]),
      settings: { ...DEFAULT_TURN_SETTINGS, stopGraceMs: 0 },
      signal: new AbortController().signal,
    },
  );
  const events: AssistantEvent[] = [];
  for await (const e of handle.events) events.push(e);
  return { events, backend };
};
const text = (events: AssistantEvent[]) =>
  events.flatMap((e) => (e.type === "text-delta" ? [e.delta] : [])).join("");
const finishOf = (events: AssistantEvent[]) => events.flatMap((e) => (e.type === "finish" ? [e.finish] : []));
const callEvents = (events: AssistantEvent[]) => events.filter((e) => e.type.startsWith("tool-call"));

describe("stop sequences in a turn", () => {
  it("end the answer before a sequence split across deltas, stop the backend turn, finish stop", async () => {
    const { events, backend } = await run(
      [{ chunks: ["Hello wor", "ld. ST", "OP and more", " text"], hangAfterChunks: 3 }],
      { stopSequences: ["STOP"] },
    );
    expect(text(events)).toBe("Hello world. ");
    // The finish names the sequence that matched (Messages reports it as `stop_sequence`).
    expect(finishOf(events)).toEqual([{ reason: "stop", raw: "stop_sequence", stopSequence: "STOP" }]);
    expect(backend.aborts()).toBe(1);
  });

  it("a partial match that does not complete is released as text", async () => {
    const { events } = await run([{ chunks: ["a ST", "OOP b", " ST"] }], { stopSequences: ["STOP"] });
    expect(text(events)).toBe("a STOOP b ST");
    expect(finishOf(events)).toEqual([{ reason: "stop", raw: "completed" }]);
  });

  it("are not applied inside a tool-call block", async () => {
    const { events } = await run([{ chunks: [`Checking. ${block({ city: "STOP" })}`] }], {
      stopSequences: ["STOP"],
    });
    expect(text(events)).toBe("Checking. ");
    expect(events.find((e) => e.type === "tool-call-end")).toMatchObject({ arguments: '{"city":"STOP"}' });
    expect(finishOf(events)[0]?.reason).toBe("tool_calls");
  });
});

describe("output token limit in a turn", () => {
  it("stops the backend at the limit and finishes length, with exactly the first tokens", async () => {
    const answer = "one two three four five six seven eight nine ten";
    const { events, backend } = await run([{ chunks: answer.match(/.{1,4}/g)!, hangAfterChunks: 12 }], {
      maxOutputTokens: 4,
    });
    expect(text(events)).toBe("one two three four");
    expect(countTokens(o200kEncoding, text(events))).toBe(4);
    expect(finishOf(events)).toEqual([{ reason: "length", raw: "max_output_tokens" }]);
    expect(backend.aborts()).toBe(1);
  });

  it("an answer within the limit is untouched", async () => {
    const { events } = await run([{ chunks: ["short ", "answer"] }], { maxOutputTokens: 50 });
    expect(text(events)).toBe("short answer");
    expect(finishOf(events)[0]?.reason).toBe("stop");
  });

  it("a call cut by the limit is never emitted, not even its start", async () => {
    const full = `Let me check. ${block({ city: "Paris, the capital of France, on the Seine" })}`;
    const limit = countTokens(o200kEncoding, full) - 3;
    const { events } = await run([{ chunks: full.match(/.{1,5}/g)! }], { maxOutputTokens: limit });
    expect(text(events)).toBe("Let me check. ");
    expect(callEvents(events)).toEqual([]);
    expect(finishOf(events)).toEqual([{ reason: "length", raw: "max_output_tokens" }]);
  });

  it("a call completed within the limit is emitted whole", async () => {
    const full = `Let me check. ${block({ city: "Paris" })}`;
    const { events } = await run([{ chunks: full.match(/.{1,5}/g)! }], { maxOutputTokens: 500 });
    const types = callEvents(events).map((e) => e.type);
    expect(types[0]).toBe("tool-call-start");
    expect(types.at(-1)).toBe("tool-call-end");
    expect(events.find((e) => e.type === "tool-call-end")).toMatchObject({ arguments: '{"city":"Paris"}' });
    expect(finishOf(events)[0]?.reason).toBe("tool_calls");
  });
});

describe("the stop sequence matcher", () => {
  it("stops where a sequence first ends, whatever the chunking; before the longest ending there", async () => {
    const { createStopSequenceMatcher } = await import("../../src/output/stop-sequences.js");
    const run = (deltas: string[], stops: string[]) => {
      const m = createStopSequenceMatcher(stops);
      let out = "";
      for (const d of deltas) {
        const scan = m.push(d);
        out += scan.text;
        if (scan.stopped) return { out, stopped: true };
      }
      return { out: out + m.flush(), stopped: false };
    };
    // "c" ends before "abcd" would: a model stops at the first completed sequence.
    expect(run(["abcd"], ["abcd", "c"])).toEqual({ out: "ab", stopped: true });
    expect(run(["a", "b", "c", "d"], ["abcd", "c"])).toEqual({ out: "ab", stopped: true });
    // Both end at the same place: the text stops before the longer one.
    expect(run(["xxab"], ["ab", "xab"])).toEqual({ out: "x", stopped: true });
    // A held partial match that fails is released as text; flush returns what is held.
    expect(run(["aab", "x"], ["abc"])).toEqual({ out: "aabx", stopped: false });
    expect(run(["hello ab"], ["abc"])).toEqual({ out: "hello ab", stopped: false });
    // Failure links: "abab" then "c" completes "abc" through the suffix "ab".
    expect(run(["aba", "bc!"], ["abc"])).toEqual({ out: "ab", stopped: true });
  });

  it("costs the same for 256 sequences as for one (linear in the text)", async () => {
    const { createStopSequenceMatcher } = await import("../../src/output/stop-sequences.js");
    const stops = Array.from({ length: 256 }, (_, i) => `${"x".repeat(1000)}<${i}>`);
    const m = createStopSequenceMatcher(stops);
    let out = "";
    const started = performance.now();
    for (let i = 0; i < 20_000; i++) out += m.push("xxxx").text;
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(m.push("<255>")).toEqual({ text: "", stopped: true, sequence: `${"x".repeat(1000)}<255>` });
    expect(out).toBe("x".repeat(80_000 - 1000));
  });
});
