import { afterEach, describe, expect, it } from "vitest";
import { postChat, startGateway, type TestGateway } from "./support/gateway.js";
import { fragments, TIME_TOOL, toolBlock, USER_ASKS, WEATHER_TOOL } from "./support/scripts.js";

let gateway: TestGateway | undefined;
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
});

const ask = { model: "gpt-test", messages: [...USER_ASKS], tools: [WEATHER_TOOL, TIME_TOOL] };
const weather = toolBlock("get_weather", { city: "Paris" });

/** The calls of a non-streamed answer to what the model wrote (in 7-character pieces), arguments parsed. */
const callsFor = async (written: string) => {
  gateway = await startGateway([{ chunks: fragments(written) }]);
  const res = await postChat(gateway, ask);
  expect(res.status).toBe(200);
  const message = JSON.parse(res.text).choices[0].message as {
    content: string | null;
    tool_calls?: Array<{ function: { name: string; arguments: string } }>;
  };
  const calls = (message.tool_calls ?? []).map((c) => [c.function.name, JSON.parse(c.function.arguments)]);
  return { calls, content: message.content };
};

/** Careless JSON the model writes in prompt mode: a repair adds only what is missing, or there is no call. */
describe("a repaired call holds exactly what the model wrote (Chat Completions, non-streamed)", () => {
  it("unescaped inner quotes are escaped, not the string cut at them", async () => {
    const { calls } = await callsFor(
      '<tool_call>{"name":"get_time","arguments":{"tz":"He said "hello" to me"}}</tool_call>',
    );
    expect(calls).toEqual([["get_time", { tz: 'He said "hello" to me' }]]);
  });

  it("a backslash before a raw tab keeps the backslash, the tab and the rest of the string", async () => {
    const { calls } = await callsFor(
      '<tool_call>{"name":"get_time","arguments":{"tz":"a\\\tb and the rest"}}</tool_call>',
    );
    expect(calls).toEqual([["get_time", { tz: "a\\\tb and the rest" }]]);
  });

  it("two objects in one block are two calls, in order", async () => {
    const { calls } = await callsFor(
      '<tool_call>{"name":"get_weather","arguments":{"city":"Paris"}}\n{"name":"get_time","arguments":{"tz":"UTC"}}</tool_call>',
    );
    expect(calls).toEqual([
      ["get_weather", { city: "Paris" }],
      ["get_time", { tz: "UTC" }],
    ]);
  });

  it("a block never closed (its string holds the close tag) is text; the valid block after it is a call", async () => {
    const { calls, content } = await callsFor(
      `<tool_call>{"name":"lookup","arguments":{"q":"Paris </tool_call>\n${weather}`,
    );
    expect(calls).toEqual([["get_weather", { city: "Paris" }]]);
    expect(content).toContain('"q":"Paris');
  });

  const ambiguous = '<tool_call>{"name":"get_weather","arguments":{"city":"Par" "is"}}</tool_call>';

  // An ambiguous quote (a missing comma?): the value cannot be kept whole.
  it("a call to an offered tool whose value cannot be kept whole is text, not a call and not a 422", async () => {
    const broken = '<tool_call>{"name":"get_weather","arguments":{"city":"Par" "is"}}</tool_call>';
    const { calls, content } = await callsFor(`Checking. ${broken}`);
    expect(calls).toEqual([]);
    expect(content).toBe(`Checking. ${broken}`);
  });

  it("a strict tool's call that cannot be kept whole is a corrective turn; the call the model then writes is the answer", async () => {
    const strict = { ...WEATHER_TOOL, function: { ...WEATHER_TOOL.function, strict: true } };
    gateway = await startGateway([{ chunks: fragments(ambiguous) }, { chunks: weather }]);
    const res = await postChat(gateway, { ...ask, tools: [strict] });
    expect(res.status).toBe(200);
    const message = JSON.parse(res.text).choices[0].message;
    expect(message.tool_calls.map((c: { function: { arguments: string } }) => c.function.arguments)).toEqual([
      '{"city":"Paris"}',
    ]);
    expect(gateway.backend.requests).toHaveLength(2);
  });
});
