import { createOpenAI } from "@ai-sdk/openai";
import { tool as lcTool } from "@langchain/core/tools";
import { ChatOpenAI } from "@langchain/openai";
import { Agent, tool as agentTool, OpenAIProvider, Runner, setTracingDisabled } from "@openai/agents";
import { tool as aiTool, generateText, stepCountIs } from "ai";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { type RecordedRequest, startE2E } from "./e2e-gateway.js";
import { fn, itemsOf, nativeModel, toolsOf } from "./native-support.js";

const weatherSchema = {
  type: "object",
  properties: { city: { type: "string" } },
  required: ["city"],
  additionalProperties: false,
};
const weather = { type: "function" as const, function: { name: "get_weather", parameters: weatherSchema } };

describe("native tool mode end to end: real clients → gateway → real codex (dynamic tools) → scripted model", {
  timeout: 60_000,
}, () => {
  let e2e: Awaited<ReturnType<typeof startE2E>>;
  let client: OpenAI;
  const last = (): RecordedRequest => e2e.provider.requests.at(-1) as RecordedRequest;
  const since = (n: number) => e2e.provider.requests.slice(n);
  beforeAll(async () => {
    e2e = await startE2E(nativeModel, { PROXY_TOOL_MODE: "auto" });
    client = new OpenAI({ baseURL: `${e2e.url}/v1`, apiKey: "sk-e2e", maxRetries: 0 });
    setTracingDisabled(true);
  }, 60_000);
  afterAll(() => e2e?.close());

  it("chat: the model gets the client's tools natively (no built-ins), one call comes back with its own id", async () => {
    const res = await client.chat.completions.create({
      model: "e2e-model",
      messages: [{ role: "user", content: "What's the weather in Paris?" }],
      tools: [weather],
    });
    const upstream = last();
    expect(toolsOf(upstream)).toEqual([
      { type: "function", name: "get_weather", description: "", strict: false, parameters: weatherSchema },
    ]);
    expect(JSON.stringify(upstream.body.input)).not.toContain("<tool_call>");
    const choice = res.choices[0]!;
    expect(choice.finish_reason).toBe("tool_calls");
    expect(choice.message.content).toBe("Let me check. ");
    expect(choice.message.tool_calls).toEqual([
      {
        id: `call_${upstream.index}_0`,
        type: "function",
        function: { name: "get_weather", arguments: '{"city":"Paris"}' },
      },
    ]);
  });

  it("chat stream: three parallel calls, exact and in order; the outputs reach the model as native items", async () => {
    const tools = [weather];
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: "user", content: "Weather [three]" }];
    const final = await client.chat.completions
      .stream({ model: "e2e-model", messages, tools, stream_options: { include_usage: true } })
      .finalChatCompletion();
    const n = last().index;
    const calls = final.choices[0]?.message.tool_calls ?? [];
    expect(calls.map((c) => c.type === "function" && [c.id, c.function.arguments])).toEqual([
      [`call_${n}_0`, '{"city":"Paris"}'],
      [`call_${n}_1`, '{"city":"Oslo"}'],
      [`call_${n}_2`, '{"city":"Lima"}'],
    ]);
    expect(final.usage?.total_tokens).toBeGreaterThan(0);

    messages.push(final.choices[0]!.message);
    for (const [k, c] of calls.entries())
      messages.push({ role: "tool", tool_call_id: c.id, content: `w${k}` });
    const answer = await client.chat.completions.create({ model: "e2e-model", messages, tools });
    expect(answer.choices[0]?.message.content).toBe("The weather: w0 / w1 / w2");
    const sent = itemsOf(last()).filter((i) => i.type?.startsWith("function_call"));
    expect(sent.map((i) => [i.type, i.call_id])).toEqual([
      ["function_call", `call_${n}_0`],
      ["function_call", `call_${n}_1`],
      ["function_call", `call_${n}_2`],
      ["function_call_output", `call_${n}_0`],
      ["function_call_output", `call_${n}_1`],
      ["function_call_output", `call_${n}_2`],
    ]);
    // Outputs alone started the turn: no user message after them.
    expect(itemsOf(last()).at(-1)?.type).toBe("function_call_output");
  });

  it("responses: function_call items keep the model's call_id across the round trip", async () => {
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
      call_id: `call_${last().index}_0`,
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

  it("LangChain bindTools().stream() on chat and on the Responses API", async () => {
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
      expect(full?.tool_calls?.map((c) => [c.name, c.args, c.id])).toEqual([
        ["get_weather", { city: "Paris" }, `call_${last().index}_0`],
      ]);
    }
  });

  it("Vercel AI SDK: generateText runs the tool and finishes with text", async () => {
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
    expect(result.text).toBe("The weather: Windy in Paris");
    expect(itemsOf(last()).at(-1)).toMatchObject({ type: "function_call_output" });
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
      instructions: "Answer.",
      model: "e2e-model",
      tools: [getWeather],
    });
    const runner = new Runner({
      modelProvider: new OpenAIProvider({ openAIClient: client, useResponses: true }),
    });
    const result = await runner.run(agent, "What's the weather in Paris?");
    expect(result.finalOutput).toBe("The weather: Foggy in Paris");
  });

  it("x-proxy-tool-mode: prompt pins prompt mode for one request", async () => {
    const n = e2e.provider.requests.length;
    await client.chat.completions.create(
      { model: "e2e-model", messages: [{ role: "user", content: "hello" }], tools: [weather] },
      { headers: { "x-proxy-tool-mode": "prompt" } },
    );
    const upstream = since(n)[0]!;
    expect(toolsOf(upstream)).toEqual([]);
    expect(JSON.stringify(upstream.body.input)).toContain("<tool_call>");
  });

  it("a client gone mid-turn leaves no pending codex tool request (/metrics gauge back to 0)", async () => {
    const gauge = async () => {
      const text = await (await fetch(`${e2e.url}/metrics`)).text();
      return Number(/^proxy_codex_pending_tool_requests (\d+)/m.exec(text)?.[1]);
    };
    e2e.provider.script((r) =>
      JSON.stringify(r.body.input).includes("[hang]")
        ? { items: [fn(`call_${r.index}_h`, "get_weather", { city: "x" })], hang: true }
        : nativeModel(r),
    );
    // Earlier tests' conversations may hold calls open on their live threads (continuity): count from there.
    const before = await gauge();
    const controller = new AbortController();
    const pending = client.chat.completions
      .create(
        {
          model: "e2e-model",
          messages: [{ role: "user", content: "[hang] weather" }],
          tools: [weather],
          stream: true,
        },
        { signal: controller.signal },
      )
      .then(async (s) => {
        for await (const _ of s) {
        }
      })
      .catch(() => undefined);
    await expect.poll(gauge, { timeout: 20_000 }).toBe(before + 1);
    controller.abort();
    await pending;
    await expect.poll(gauge, { timeout: 20_000 }).toBe(before);
    e2e.provider.script(nativeModel);
  });
});
