import { describe, expect, it } from "vitest";
import { DEFAULT_TURN_SETTINGS, runTurn } from "../../src/gateway.js";
import { type AssistantEvent, createCountingIdGenerator, type ToolSpec } from "../../src/index.js";
import { createScriptedBackend, o200kEncoding } from "../../src/testing/index.js";
import { policyOf } from "../support/tool-policy.js";

const weather: ToolSpec = {
  name: "get_weather",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  strict: false,
};

/** A block whose value cannot be kept whole: two strings side by side where one was meant. */
const BROKEN = '<tool_call>{"name":"get_weather","arguments":{"city":"Par" "is"}}</tool_call>';
const VALID = '<tool_call>{"name":"get_weather","arguments":{"city":"Paris"}}</tool_call>';

const run = async (chunks: string[], wholeAnswer: boolean | undefined) => {
  const handle = runTurn(
    { backend: createScriptedBackend([{ chunks }]), ids: createCountingIdGenerator(), tokens: o200kEncoding },
    {
      request: {
        model: "m",
        items: [{ type: "message", role: "user", content: [{ type: "text", text: "Weather in Paris?" }] }],
      },
      tools: policyOf([weather]),
      settings: { ...DEFAULT_TURN_SETTINGS, toolMode: "prompt" },
      signal: new AbortController().signal,
      wholeAnswer,
    },
  );
  const events: AssistantEvent[] = [];
  for await (const e of handle.events) events.push(e);
  return events;
};

const text = (events: AssistantEvent[]) =>
  events.flatMap((e) => (e.type === "text-delta" ? [e.delta] : [])).join("");
const kinds = (events: AssistantEvent[]) => events.map((e) => e.type);

describe("a non-streamed answer (wholeAnswer): a call is passed on only once complete", () => {
  // Split after the call's value has begun, so a streamed answer has already shown the call start.
  const split = (block: string) => ["Checking. ", block.slice(0, 52), block.slice(52)];

  it("a block whose value cannot be kept whole is text, not a failed call", async () => {
    const events = await run(split(BROKEN), true);
    expect(events.some((e) => e.type.startsWith("tool-call") || e.type === "error")).toBe(false);
    expect(text(events)).toBe(`Checking. ${BROKEN}`);
    expect(events.at(-1)).toMatchObject({ type: "finish", finish: { reason: "stop" } });
  });

  it("streamed, the same block fails the turn: the client already saw the call start", async () => {
    const events = await run(split(BROKEN), undefined);
    expect(kinds(events)).toContain("tool-call-start");
    expect(events.at(-1)).toMatchObject({ type: "error", error: { code: "tool_call_incomplete" } });
  });

  it("a valid call is the same call, its start, deltas and end passed on together", async () => {
    const whole = await run(split(VALID), true);
    const streamed = await run(split(VALID), undefined);
    const calls = (events: AssistantEvent[]) => events.filter((e) => e.type === "tool-call-end");
    expect(calls(whole)).toEqual(calls(streamed));
    expect(calls(whole)).toMatchObject([{ name: "get_weather", arguments: '{"city":"Paris"}' }]);
    const start = whole.findIndex((e) => e.type === "tool-call-start");
    const end = whole.findIndex((e) => e.type === "tool-call-end");
    expect(new Set(kinds(whole).slice(start + 1, end))).toEqual(new Set(["tool-call-delta"]));
    expect(whole.at(-1)).toMatchObject({ type: "finish", finish: { reason: "tool_calls" } });
  });
});
