import { Agent, OpenAIResponsesModel, run, setTracingDisabled, tool } from "@openai/agents";
import OpenAI from "openai";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { startGateway, type TestGateway } from "./support/gateway.js";
import { fragments, promptText, toolBlock } from "./support/scripts.js";

let gateway: TestGateway | undefined;
beforeAll(() => setTracingDisabled(true));
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
});

describe("OpenAI Agents SDK over /v1/responses", () => {
  it("runs a full agent loop: function call → tool execution → final answer", async () => {
    gateway = await startGateway((_request, turn) =>
      turn === 0
        ? { chunks: fragments(`Let me look that up. ${toolBlock("get_weather", { city: "Tokyo" })}`, 6) }
        : { chunks: fragments("Tokyo is sunny and 21°C.") },
    );
    const executed: string[] = [];
    const getWeather = tool({
      name: "get_weather",
      description: "Current weather for a city",
      parameters: z.object({ city: z.string() }),
      execute: async ({ city }) => {
        executed.push(city);
        return `sunny, 21C in ${city}`;
      },
    });
    const client = new OpenAI({ baseURL: gateway.baseURL, apiKey: "test-key", maxRetries: 0 });
    const agent = new Agent({
      name: "Weather agent",
      instructions: "Answer weather questions with the tool.",
      tools: [getWeather],
      model: new OpenAIResponsesModel(client, "gpt-test"),
    });
    const result = await run(agent, "What's the weather in Tokyo?");
    expect(result.finalOutput).toBe("Tokyo is sunny and 21°C.");
    expect(executed).toEqual(["Tokyo"]);
    expect(gateway.backend.requests).toHaveLength(2);
    const followUp = gateway.backend.requests[1]!;
    expect(promptText(followUp)).toContain("sunny, 21C in Tokyo");
    expect(followUp.instructions).toContain("Answer weather questions with the tool.");
  });

  it("streams the same loop with run(..., {stream:true})", async () => {
    gateway = await startGateway((_request, turn) =>
      turn === 0
        ? { chunks: fragments(toolBlock("get_weather", { city: "Rome" }), 4) }
        : { chunks: ["Rome: warm."] },
    );
    const getWeather = tool({
      name: "get_weather",
      description: "Current weather for a city",
      parameters: z.object({ city: z.string() }),
      execute: async ({ city }) => `warm in ${city}`,
    });
    const client = new OpenAI({ baseURL: gateway.baseURL, apiKey: "test-key", maxRetries: 0 });
    const agent = new Agent({
      name: "w",
      tools: [getWeather],
      model: new OpenAIResponsesModel(client, "gpt-test"),
    });
    const stream = await run(agent, "Rome?", { stream: true });
    for await (const _event of stream) {
      // drain
    }
    await stream.completed;
    expect(stream.finalOutput).toBe("Rome: warm.");
    expect(promptText(gateway.backend.requests[1]!)).toContain("warm in Rome");
  });
});
