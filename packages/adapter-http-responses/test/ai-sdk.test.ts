import { createOpenAI } from "@ai-sdk/openai";
import { generateText, stepCountIs, streamText, type ToolSet, tool } from "ai";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { startGateway, type TestGateway } from "./support/gateway.js";
import { fragments, promptText, toolBlock } from "./support/scripts.js";

let gateway: TestGateway | undefined;
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
});

// `provider("m")` is the Responses API model in @ai-sdk/openai 4.
const modelFor = (g: TestGateway) => createOpenAI({ baseURL: g.baseURL, apiKey: "test-key" })("gpt-test");
const weatherInput = z.object({ city: z.string() });
// Declared as a ToolSet: the SDK's Tool type trips over exactOptionalPropertyTypes without it.
const tools: ToolSet = {
  weather: tool({ description: "Current weather for a city", inputSchema: weatherInput }),
};
const TWO_CALLS = `Looking.${toolBlock("weather", { city: "Paris" })}${toolBlock("weather", { city: "Lima" })}`;

describe("Vercel AI SDK (@ai-sdk/openai, Responses)", () => {
  it("streamText surfaces both calls with parsed input, the text and usage", async () => {
    gateway = await startGateway([
      { chunks: fragments(TWO_CALLS, 3), usage: { inputTokens: 40, outputTokens: 12, totalTokens: 52 } },
    ]);
    const result = streamText({ model: modelFor(gateway), tools, prompt: "weather in Paris and Lima?" });
    const calls = await result.toolCalls;
    expect(calls.map((c) => [c.toolCallId, c.toolName, c.input])).toEqual([
      ["call_1", "weather", { city: "Paris" }],
      ["call_2", "weather", { city: "Lima" }],
    ]);
    expect(await result.text).toBe("Looking.");
    expect(await result.finishReason).toBe("tool-calls");
    const usage = await result.usage;
    expect([usage.inputTokens, usage.outputTokens]).toEqual([40, 12]);
  });

  it("generateText returns the calls", async () => {
    gateway = await startGateway([{ chunks: fragments(TWO_CALLS) }]);
    const result = await generateText({ model: modelFor(gateway), tools, prompt: "weather?" });
    expect(result.toolCalls.map((c) => [c.toolName, c.input])).toEqual([
      ["weather", { city: "Paris" }],
      ["weather", { city: "Lima" }],
    ]);
    expect(result.finishReason).toBe("tool-calls");
  });

  it("a multi-step generateText loop executes the tool and feeds the result back (item_reference resolved)", async () => {
    gateway = await startGateway((_r, turn) =>
      turn === 0
        ? { chunks: fragments(`Checking Paris. ${toolBlock("weather", { city: "Paris" })}`, 5) }
        : { chunks: ["It is mild."] },
    );
    const result = await generateText({
      model: modelFor(gateway),
      tools: {
        weather: tool({
          description: "Current weather for a city",
          inputSchema: weatherInput,
          execute: async ({ city }: { city: string }) => ({ city, celsius: 14 }),
        }),
      } as ToolSet,
      stopWhen: stepCountIs(3),
      prompt: "weather in Paris?",
    });
    expect(result.text).toBe("It is mild.");
    expect(promptText(gateway.backend.requests[1]!)).toContain("celsius");
    // With store on (its default) the SDK sends our earlier message back as an item_reference.
    const followUp = gateway.bodies[1]?.body as { input: Array<{ type?: string; id?: string }> };
    expect(followUp.input).toContainEqual({ type: "item_reference", id: "msg_1" });
    expect(promptText(gateway.backend.requests[1]!)).toContain("Checking Paris.");
  });
});
