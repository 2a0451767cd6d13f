import { countTokens } from "@proxy/core";
import { o200kEncoding } from "@proxy/core/testing";
import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { postChat, startGateway, type TestGateway } from "./support/gateway.js";
import { fragments, toolBlock, USER_ASKS, WEATHER_TOOL } from "./support/scripts.js";

let gateway: TestGateway | undefined;
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
});

const MODEL = "gpt-test";
const clientFor = (g: TestGateway) => new OpenAI({ baseURL: g.baseURL, apiKey: "test-key", maxRetries: 0 });
const streamed = async (g: TestGateway, body: Omit<OpenAI.ChatCompletionCreateParamsStreaming, "stream">) => {
  const chunks: OpenAI.ChatCompletionChunk[] = [];
  for await (const chunk of await clientFor(g).chat.completions.create({ ...body, stream: true }))
    chunks.push(chunk);
  return {
    text: chunks.map((c) => c.choices[0]?.delta.content ?? "").join(""),
    calls: chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []),
    finishes: chunks.flatMap((c) => (c.choices[0]?.finish_reason ? [c.choices[0].finish_reason] : [])),
  };
};

describe("stop (chat)", () => {
  const answer = "The answer is 42.\n\nObservation: the user will now say";

  it("streaming: the text ends before the sequence split across deltas; finish stop; backend turn stopped", async () => {
    gateway = await startGateway([{ chunks: fragments(answer, 3), hangAfterChunks: 14 }], {
      settings: { stopGraceMs: 0 },
    });
    const r = await streamed(gateway, {
      model: MODEL,
      messages: USER_ASKS,
      stop: ["Observation:", "\n\nUser"],
    });
    // "\n\n" was held while it could still become "\n\nUser", then released.
    expect(r.text).toBe("The answer is 42.\n\n");
    expect(r.finishes).toEqual(["stop"]);
    expect(gateway.backend.aborts()).toBe(1);
  });

  it("non-streaming, a single string", async () => {
    gateway = await startGateway([{ chunks: fragments(answer, 5) }]);
    const completion = await clientFor(gateway).chat.completions.create({
      model: MODEL,
      messages: USER_ASKS,
      stop: "42",
    });
    expect(completion.choices[0]?.message.content).toBe("The answer is ");
    expect(completion.choices[0]?.finish_reason).toBe("stop");
  });

  it("does not cut inside a tool call", async () => {
    const call = toolBlock("get_weather", { city: "Observation: Paris" });
    gateway = await startGateway([{ chunks: fragments(`Checking. ${call}`, 4) }]);
    const r = await streamed(gateway, {
      model: MODEL,
      messages: USER_ASKS,
      tools: [WEATHER_TOOL],
      stop: "Observation:",
    });
    expect(r.text).toBe("Checking. ");
    expect(r.calls.map((c) => c.function?.arguments ?? "").join("")).toBe('{"city":"Observation: Paris"}');
    expect(r.finishes).toEqual(["tool_calls"]);
  });

  it("more than 4 sequences is a 400 naming stop", async () => {
    gateway = await startGateway([{ chunks: "never" }]);
    const res = await postChat(gateway, {
      model: MODEL,
      messages: USER_ASKS,
      stop: ["a", "b", "c", "d", "e"],
    });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text).error).toMatchObject({ type: "invalid_request_error", param: "stop" });
    expect(gateway.backend.requests).toHaveLength(0);
  });
});

describe("max_tokens / max_completion_tokens (chat)", () => {
  const answer = "one two three four five six seven eight nine ten eleven twelve";

  it.each([
    ["max_tokens", { max_tokens: 5 }],
    ["max_completion_tokens (wins over max_tokens)", { max_completion_tokens: 5, max_tokens: 50 }],
  ])("%s: streaming stops at the limit with finish length", async (_, limit) => {
    gateway = await startGateway([{ chunks: fragments(answer, 4), hangAfterChunks: 12 }], {
      settings: { stopGraceMs: 0 },
    });
    const r = await streamed(gateway, { model: MODEL, messages: USER_ASKS, ...limit });
    expect(r.text).toBe("one two three four five");
    expect(countTokens(o200kEncoding, r.text)).toBe(5);
    expect(r.finishes).toEqual(["length"]);
    expect(gateway.backend.aborts()).toBe(1);
  });

  it("non-streaming: a tool call cut by the limit is not returned as a call", async () => {
    const text = `Let me look that up. ${toolBlock("get_weather", { city: "Paris", units: "metric", lang: "fr" })}`;
    gateway = await startGateway([{ chunks: fragments(text, 6) }]);
    const completion = await clientFor(gateway).chat.completions.create({
      model: MODEL,
      messages: USER_ASKS,
      tools: [WEATHER_TOOL],
      max_tokens: countTokens(o200kEncoding, text) - 4,
    });
    const choice = completion.choices[0]!;
    expect(choice.finish_reason).toBe("length");
    expect(choice.message.tool_calls).toBeUndefined();
    expect(choice.message.content).toBe("Let me look that up. ");
  });

  it("streaming: a call cut by the limit sends no tool_calls delta at all", async () => {
    const text = `Sure. ${toolBlock("get_weather", { city: "Paris, France" })}`;
    gateway = await startGateway([{ chunks: fragments(text, 3) }]);
    const r = await streamed(gateway, {
      model: MODEL,
      messages: USER_ASKS,
      tools: [WEATHER_TOOL],
      max_tokens: countTokens(o200kEncoding, text) - 2,
    });
    expect(r.calls).toEqual([]);
    expect(r.finishes).toEqual(["length"]);
  });

  it("a call that fits is returned whole", async () => {
    const text = `Sure. ${toolBlock("get_weather", { city: "Paris" })}`;
    gateway = await startGateway([{ chunks: fragments(text, 3) }]);
    const r = await streamed(gateway, {
      model: MODEL,
      messages: USER_ASKS,
      tools: [WEATHER_TOOL],
      max_tokens: 200,
    });
    expect(r.calls.map((c) => c.function?.arguments ?? "").join("")).toBe('{"city":"Paris"}');
    expect(r.finishes).toEqual(["tool_calls"]);
  });
});
