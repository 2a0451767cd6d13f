import { createOpenAI } from "@ai-sdk/openai";
import { tool as lcTool } from "@langchain/core/tools";
import { ChatOpenAI } from "@langchain/openai";
import { Agent, tool as agentTool, OpenAIProvider, Runner, setTracingDisabled } from "@openai/agents";
import { tool as aiTool, generateText, stepCountIs } from "ai";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { lastUserText, type RecordedRequest, startE2E, toolCallText, transcriptOf } from "./e2e-gateway.js";

/** The scripted model: asks for the weather tool, then answers from the tool result it is shown. */
const model = (request: RecordedRequest) => {
  const input = lastUserText(request);
  const result = /\[function_call_output call_id="call_\w+" output=("(?:[^"\\]|\\.)*")\]/.exec(input);
  if (result)
    return {
      chunks: ["The weather: ", JSON.parse(result[1] ?? '""')],
      usage: { inputTokens: 300, outputTokens: 9 },
    };
  if (/weather/i.test(input))
    return { chunks: ["Let me check. ", toolCallText("get_weather", { city: "Paris" })] };
  return { text: "Hello from the scripted model." };
};

const weatherSchema = {
  type: "object",
  properties: { city: { type: "string" } },
  required: ["city"],
  additionalProperties: false,
};

describe("end to end: real clients → gateway → real codex app-server → scripted model", {
  timeout: 60_000,
}, () => {
  let e2e: Awaited<ReturnType<typeof startE2E>>;
  let client: OpenAI;
  beforeAll(async () => {
    e2e = await startE2E(model);
    client = new OpenAI({ baseURL: `${e2e.url}/v1`, apiKey: "sk-e2e", maxRetries: 0 });
    setTracingDisabled(true);
  }, 60_000);
  afterAll(() => e2e?.close());

  it("openai chat (non-stream): tool_calls come back and codex offered the model no tools of its own", async () => {
    const res = await client.chat.completions.create({
      model: "e2e-model",
      messages: [{ role: "user", content: "What's the weather in Paris?" }],
      tools: [{ type: "function", function: { name: "get_weather", parameters: weatherSchema } }],
    });
    const choice = res.choices[0]!;
    expect(choice.finish_reason).toBe("tool_calls");
    expect(choice.message.content).toBe("Let me check. ");
    const call = choice.message.tool_calls?.[0];
    expect(call?.type === "function" && call.function).toEqual({
      name: "get_weather",
      arguments: '{"city":"Paris"}',
    });
    expect(call?.id).toMatch(/^call_/);
    const upstream = e2e.provider.requests.at(-1)!;
    expect(upstream.body.tools ?? []).toEqual([]);
    expect(transcriptOf(upstream)).toContain("get_weather");
    expect(transcriptOf(upstream)).not.toContain("<environment_context>");
  });

  it("openai runTools(): a full loop with the result fed back through codex", async () => {
    const runner = client.chat.completions.runTools({
      model: "e2e-model",
      messages: [{ role: "user", content: "Weather in Paris, please." }],
      tools: [
        {
          type: "function",
          function: {
            name: "get_weather",
            description: "Current weather for a city",
            parameters: weatherSchema,
            function: (args: { city: string }) => `Sunny in ${args.city}`,
            parse: JSON.parse,
          },
        },
      ],
    });
    expect(await runner.finalContent()).toBe("The weather: Sunny in Paris");
    expect(lastUserText(e2e.provider.requests.at(-1)!)).toMatch(
      /\[function_call_output call_id="call_\w+" output="Sunny in Paris"\]/,
    );
  });

  it("openai chat.completions.stream(): finalChatCompletion has the streamed call", async () => {
    const stream = client.chat.completions.stream({
      model: "e2e-model",
      messages: [{ role: "user", content: "weather?" }],
      tools: [{ type: "function", function: { name: "get_weather", parameters: weatherSchema } }],
      stream_options: { include_usage: true },
    });
    const final = await stream.finalChatCompletion();
    expect(final.choices[0]?.message.tool_calls?.[0]).toMatchObject({
      function: { name: "get_weather", arguments: '{"city":"Paris"}' },
    });
    expect(final.usage?.total_tokens).toBeGreaterThan(0);
  });

  it("openai responses.stream(): function_call item with call_id, then the follow-up answer", async () => {
    const tools = [
      { type: "function" as const, name: "get_weather", parameters: weatherSchema, strict: false },
    ];
    const first = await client.responses
      .stream({ model: "e2e-model", input: "weather in Paris?", tools })
      .finalResponse();
    const call = first.output.find((i) => i.type === "function_call");
    expect(call).toMatchObject({
      name: "get_weather",
      arguments: '{"city":"Paris"}',
      call_id: expect.stringMatching(/^call_/),
    });
    const second = await client.responses.create({
      model: "e2e-model",
      tools,
      input: [
        { role: "user", content: "weather in Paris?" },
        ...first.output.filter((i) => i.type === "function_call"),
        {
          type: "function_call_output",
          call_id: call?.type === "function_call" ? call.call_id : "",
          output: "Rainy",
        },
      ],
    });
    expect(second.output_text).toBe("The weather: Rainy");
  });

  it("LangChain (Obsidian Copilot's client): bindTools().stream() on chat and on the Responses API", async () => {
    const search = lcTool(async () => "", {
      name: "get_weather",
      description: "weather",
      schema: z.object({ city: z.string() }),
    });
    for (const useResponsesApi of [false, true]) {
      const chat = new ChatOpenAI({
        model: useResponsesApi ? "gpt-5-e2e" : "e2e-model",
        apiKey: "sk-e2e",
        configuration: { baseURL: `${e2e.url}/v1` },
        streaming: true,
        useResponsesApi,
      });
      let full: Awaited<ReturnType<typeof chat.invoke>> | undefined;
      for await (const chunk of await chat.bindTools([search]).stream("What's the weather in Paris?"))
        full = full ? full.concat(chunk) : chunk;
      expect(full?.tool_calls?.map((c) => [c.name, c.args])).toEqual([["get_weather", { city: "Paris" }]]);
    }
  });

  it("Vercel AI SDK (Responses provider): generateText runs the tool and finishes with text", async () => {
    const openai = createOpenAI({ baseURL: `${e2e.url}/v1`, apiKey: "sk-e2e" });
    const result = await generateText({
      model: openai("e2e-model"),
      prompt: "What is the weather in Paris?",
      tools: {
        get_weather: aiTool({
          description: "weather",
          inputSchema: z.object({ city: z.string() }),
          execute: async ({ city }) => `Windy in ${city}`,
        }),
      },
      stopWhen: stepCountIs(3),
    });
    expect(result.text).toContain("Windy in Paris");
    expect(result.steps[0]?.toolCalls[0]?.toolName).toBe("get_weather");
  });

  it("OpenAI Agents SDK: an agent loop with one function tool", async () => {
    const getWeather = agentTool({
      name: "get_weather",
      description: "weather",
      parameters: z.object({ city: z.string() }),
      execute: async ({ city }) => `Foggy in ${city}`,
    });
    const agent = new Agent({
      name: "weather",
      instructions: "Answer weather questions.",
      model: "e2e-model",
      tools: [getWeather],
    });
    const runner = new Runner({
      modelProvider: new OpenAIProvider({ openAIClient: client, useResponses: true }),
    });
    const result = await runner.run(agent, "What's the weather in Paris?");
    expect(result.finalOutput).toBe("The weather: Foggy in Paris");
  });
});
