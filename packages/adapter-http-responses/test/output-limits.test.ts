import { countTokens } from "@proxy/core";
import { o200kEncoding } from "@proxy/core/testing";
import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { startGateway, type TestGateway } from "./support/gateway.js";
import { fragments, MODEL, toolBlock, WEATHER_TOOL } from "./support/scripts.js";

let gateway: TestGateway | undefined;
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
});

const clientFor = (g: TestGateway) => new OpenAI({ baseURL: g.baseURL, apiKey: "test-key", maxRetries: 0 });

describe("max_output_tokens (responses)", () => {
  const answer = "one two three four five six seven eight nine ten eleven twelve";

  it("non-streaming: cut at the limit, status incomplete, reason max_output_tokens", async () => {
    gateway = await startGateway([{ chunks: fragments(answer, 4), hangAfterChunks: 12 }], {
      settings: { stopGraceMs: 0 },
    });
    const response = await clientFor(gateway).responses.create({
      model: MODEL,
      input: "Count.",
      max_output_tokens: 6,
    });
    expect(response.status).toBe("incomplete");
    expect(response.incomplete_details).toEqual({ reason: "max_output_tokens" });
    expect(response.output_text).toBe("one two three four five six");
    expect(gateway.backend.aborts()).toBe(1);
  });

  it("streaming: a function call cut by the limit is never announced; the stream ends response.incomplete", async () => {
    const text = `Checking. ${toolBlock("get_weather", { city: "Paris, France" })}`;
    gateway = await startGateway([{ chunks: fragments(text, 3) }]);
    const stream = await clientFor(gateway).responses.create({
      model: MODEL,
      input: "Weather in Paris?",
      tools: [WEATHER_TOOL],
      max_output_tokens: countTokens(o200kEncoding, text) - 2,
      stream: true,
    });
    const types: string[] = [];
    let final: OpenAI.Responses.Response | undefined;
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === "response.incomplete") final = event.response;
    }
    expect(types.filter((t) => t.startsWith("response.function_call"))).toEqual([]);
    expect(final?.output.map((o) => o.type)).toEqual(["message"]);
    expect(final?.incomplete_details).toEqual({ reason: "max_output_tokens" });
    expect(types.at(-1)).toBe("response.incomplete");
  });

  it("a function call within the limit completes normally", async () => {
    const text = `Checking. ${toolBlock("get_weather", { city: "Paris" })}`;
    gateway = await startGateway([{ chunks: fragments(text, 3) }]);
    const response = await clientFor(gateway).responses.create({
      model: MODEL,
      input: "Weather in Paris?",
      tools: [WEATHER_TOOL],
      max_output_tokens: 300,
    });
    expect(response.status).toBe("completed");
    expect(response.output.find((o) => o.type === "function_call")).toMatchObject({
      arguments: '{"city":"Paris"}',
    });
  });
});
