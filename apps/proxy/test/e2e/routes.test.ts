import { createOpenAI } from "@ai-sdk/openai";
import { tool as lcTool } from "@langchain/core/tools";
import { ChatOpenAI } from "@langchain/openai";
import { Agent, tool as agentTool, OpenAIProvider, Runner, setTracingDisabled } from "@openai/agents";
import { startScriptedUpstream } from "@proxy/adapter-openai-compatible/testing";
import { tool as aiTool, generateText, stepCountIs } from "ai";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { toolCallText } from "./e2e-gateway.js";
import {
  lastUpstreamUserText,
  type RecordedUpstreamRequest,
  startUpstreamGateway,
  type UpstreamTurn,
  upstreamTranscript,
} from "./upstream-gateway.js";

/** A text-only local model: thinks aloud in <think>, asks for the weather tool, then answers from its result. */
const localModel = (request: RecordedUpstreamRequest): UpstreamTurn => {
  const input = lastUpstreamUserText(request);
  const result = /\[function_call_output call_id="call_\w+" output=("(?:[^"\\]|\\.)*")\]/.exec(input);
  if (result)
    return {
      chunks: ["The weather: ", JSON.parse(result[1] ?? '""') as string],
      usage: { inputTokens: 300, outputTokens: 9 },
    };
  if (/weather/i.test(input))
    return {
      chunks: [
        "<think>The user wants",
        " the weather.</think>\n\n",
        "Let me check. ",
        toolCallText("get_weather", { city: "Paris" }),
      ],
      // The SSE bytes arrive cut at odd places, inside UTF-8 and JSON alike.
      splitAt: [3, 50, 51, 52, 200, 333, 401, 402, 777],
    };
  if (/slow/i.test(input)) return { chunks: ["slow ", "answer"], delayMs: 300 };
  if (/hang forever/i.test(input)) return { chunks: ["waiting "], hang: true };
  if (/throttle me/i.test(input)) return { status: 429, retryAfter: "7", errorMessage: "slow down" };
  if (/bad key/i.test(input)) return { status: 401, errorMessage: "invalid api key" };
  return { text: "Hello from the local model." };
};

/** A server that does tools well (native mode): gets `tools`, answers with its own `tool_calls`. */
const nativeModel = (request: RecordedUpstreamRequest): UpstreamTurn => {
  const messages = request.body.messages as Array<{ role: string; content: unknown }>;
  const last = messages.at(-1);
  if (last?.role === "tool") return { text: `The weather: ${String(last.content)}` };
  if (!request.body.tools) return { text: "no tools were offered" };
  return {
    toolCalls: [{ id: "call_upstream_7", name: "get_weather", argumentChunks: ['{"city":', '"Paris"}'] }],
  };
};

const weatherSchema = {
  type: "object",
  properties: { city: { type: "string" } },
  required: ["city"],
  additionalProperties: false,
};

describe("model routes: real clients → gateway → text-only OpenAI-compatible upstream", {
  timeout: 60_000,
}, () => {
  let e2e: Awaited<ReturnType<typeof startUpstreamGateway>>;
  let client: OpenAI;
  let downPort = 0;
  beforeAll(async () => {
    const gone = await startScriptedUpstream(() => undefined);
    downPort = gone.port;
    await gone.close();
    e2e = await startUpstreamGateway(
      [localModel, nativeModel],
      ([local, native]) => [
        {
          id: "qwen3-local",
          backend: "openai-compatible",
          baseUrl: local,
          upstreamModel: "qwen3:8b",
          aliases: ["local"],
        },
        { id: "one-at-a-time", backend: "openai-compatible", baseUrl: local, maxInFlight: 1 },
        { id: "vllm-native", backend: "openai-compatible", baseUrl: native, toolMode: "native" },
        { id: "xml-local", backend: "openai-compatible", baseUrl: local, outputMode: "obsidian-xml" },
        { id: "offline-model", backend: "openai-compatible", baseUrl: `http://127.0.0.1:${downPort}/v1` },
      ],
      { PROXY_MAX_QUEUE: "0" },
    );
    client = new OpenAI({ baseURL: `${e2e.url}/v1`, apiKey: "sk-e2e", maxRetries: 0 });
    setTracingDisabled(true);
  }, 60_000);
  afterAll(() => e2e?.close());
  const upstream = () => e2e.upstreams[0]!;

  it("openai chat (non-stream): exact tool_calls, the upstream got the prompt and no tools", async () => {
    const res = await client.chat.completions.create({
      model: "qwen3-local",
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
    const sent = upstream().requests.at(-1)!;
    expect(sent.body.model).toBe("qwen3:8b");
    expect(sent.body).not.toHaveProperty("tools");
    expect(sent.body).not.toHaveProperty("tool_choice");
    expect(upstreamTranscript(sent)).toContain("get_weather");
  });

  it("keeps the upstream connection alive across requests", async () => {
    const before = upstream().connections();
    for (let i = 0; i < 4; i++)
      await client.chat.completions.create({
        model: "qwen3-local",
        messages: [{ role: "user", content: "hi" }],
      });
    expect(upstream().connections() - before).toBeLessThanOrEqual(1);
  });

  it("a route's outputMode: <use_tool> answers for that model; the header overrides it; other routes keep the default", async () => {
    const chat = (model: string, headers: Record<string, string> = {}) =>
      fetch(`${e2e.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: "Bearer sk-e2e", "content-type": "application/json", ...headers },
        body: JSON.stringify({
          model,
          messages: [{ role: "user", content: "What's the weather in Paris?" }],
          tools: [{ type: "function", function: { name: "get_weather", parameters: weatherSchema } }],
        }),
      });
    type Chat = {
      choices: Array<{ message: { content: string; tool_calls: Array<{ function: unknown }> } }>;
    };
    const useTool = "<use_tool>\n<name>get_weather</name>\n<city>Paris</city>\n</use_tool>";
    const call = { name: "get_weather", arguments: '{"city":"Paris"}' };

    const xml = await chat("xml-local");
    expect(xml.status).toBe(200);
    expect(xml.headers.get("x-proxy-output-mode")).toBe("obsidian-xml");
    const xmlMessage = ((await xml.json()) as Chat).choices[0]?.message;
    expect(xmlMessage?.content).toContain(useTool);
    expect(xmlMessage?.tool_calls[0]?.function).toEqual(call);

    const overridden = await chat("xml-local", { "x-proxy-output-mode": "openai-json" });
    expect(overridden.headers.get("x-proxy-output-mode")).toBe("openai-json");
    const jsonMessage = ((await overridden.json()) as Chat).choices[0]?.message;
    expect(jsonMessage?.content).toBe("Let me check. ");
    expect(jsonMessage?.tool_calls[0]?.function).toEqual(call);

    const other = await chat("qwen3-local");
    expect(other.headers.get("x-proxy-output-mode")).toBe("openai-json");
    expect(((await other.json()) as Chat).choices[0]?.message.content).toBe("Let me check. ");

    // The Responses API resolves the same way (its output mode is the route's too).
    const responses = await fetch(`${e2e.url}/v1/responses`, {
      method: "POST",
      headers: { authorization: "Bearer sk-e2e", "content-type": "application/json" },
      body: JSON.stringify({ model: "xml-local", input: "hello" }),
    });
    expect(responses.status).toBe(200);
    expect(responses.headers.get("x-proxy-output-mode")).toBe("obsidian-xml");
  });

  it("openai runTools() through an alias: a full loop with the result fed back upstream", async () => {
    const runner = client.chat.completions.runTools({
      model: "local",
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
    expect(lastUpstreamUserText(upstream().requests.at(-1)!)).toMatch(/output="Sunny in Paris"\]/);
  });

  it("openai chat stream: the streamed call, reasoning kept out of content, usage", async () => {
    const stream = client.chat.completions.stream({
      model: "qwen3-local",
      messages: [{ role: "user", content: "weather?" }],
      tools: [{ type: "function", function: { name: "get_weather", parameters: weatherSchema } }],
      stream_options: { include_usage: true },
    });
    const final = await stream.finalChatCompletion();
    expect(final.choices[0]?.message.content).toBe("Let me check. ");
    expect(final.choices[0]?.message.tool_calls?.[0]).toMatchObject({
      function: { name: "get_weather", arguments: '{"city":"Paris"}' },
    });
    expect(final.usage?.total_tokens).toBeGreaterThan(0);
  });

  it("openai responses.stream(): function_call item, then the follow-up answer", async () => {
    const tools = [
      { type: "function" as const, name: "get_weather", parameters: weatherSchema, strict: true },
    ];
    const first = await client.responses
      .stream({ model: "qwen3-local", input: "weather in Paris?", tools })
      .finalResponse();
    const call = first.output.find((i) => i.type === "function_call");
    expect(call).toMatchObject({ name: "get_weather", arguments: '{"city":"Paris"}' });
    const second = await client.responses.create({
      model: "qwen3-local",
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
    const weather = lcTool(async () => "", {
      name: "get_weather",
      description: "weather",
      schema: z.object({ city: z.string() }),
    });
    for (const useResponsesApi of [false, true]) {
      const chat = new ChatOpenAI({
        model: "qwen3-local",
        apiKey: "sk-e2e",
        configuration: { baseURL: `${e2e.url}/v1` },
        streaming: true,
        useResponsesApi,
      });
      let full: Awaited<ReturnType<typeof chat.invoke>> | undefined;
      for await (const chunk of await chat.bindTools([weather]).stream("What's the weather in Paris?"))
        full = full ? full.concat(chunk) : chunk;
      expect(full?.tool_calls?.map((c) => [c.name, c.args])).toEqual([["get_weather", { city: "Paris" }]]);
    }
  });

  it("Vercel AI SDK: generateText runs the tool and finishes with text", async () => {
    const openai = createOpenAI({ baseURL: `${e2e.url}/v1`, apiKey: "sk-e2e" });
    const result = await generateText({
      model: openai("qwen3-local"),
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
    const agent = new Agent({
      name: "weather",
      instructions: "Answer weather questions.",
      model: "qwen3-local",
      tools: [
        agentTool({
          name: "get_weather",
          description: "weather",
          parameters: z.object({ city: z.string() }),
          execute: async ({ city }) => `Foggy in ${city}`,
        }),
      ],
    });
    const runner = new Runner({
      modelProvider: new OpenAIProvider({ openAIClient: client, useResponses: true }),
    });
    const result = await runner.run(agent, "What's the weather in Paris?");
    expect(result.finalOutput).toBe("The weather: Foggy in Paris");
  });

  it("native route: tools go upstream as they are and its own tool_calls come back, next to a prompt route", async () => {
    const tools = [
      { type: "function" as const, function: { name: "get_weather", parameters: weatherSchema } },
    ];
    const res = await client.chat.completions.create({
      model: "vllm-native",
      messages: [{ role: "user", content: "What's the weather in Paris?" }],
      tools,
    });
    const call = res.choices[0]?.message.tool_calls?.[0];
    expect(res.choices[0]?.finish_reason).toBe("tool_calls");
    expect(call).toMatchObject({
      id: "call_upstream_7",
      function: { name: "get_weather", arguments: '{"city":"Paris"}' },
    });
    const sent = e2e.upstreams[1]!.requests.at(-1)!.body;
    expect(sent.tools).toEqual([
      { type: "function", function: { name: "get_weather", parameters: weatherSchema } },
    ]);
    expect(sent.tool_choice).toBe("auto");
    expect(JSON.stringify(sent.messages)).not.toContain("<tool_call>");
    // The same request to a prompt route in the same gateway still sends no tools.
    await client.chat.completions.create({
      model: "qwen3-local",
      messages: [{ role: "user", content: "hi" }],
      tools,
    });
    expect(upstream().requests.at(-1)!.body).not.toHaveProperty("tools");
  });

  it("native route: the tool result goes back as a tool message with the model's call id (Responses API)", async () => {
    const tools = [
      { type: "function" as const, name: "get_weather", parameters: weatherSchema, strict: true },
    ];
    const first = await client.responses.create({ model: "vllm-native", input: "weather in Paris?", tools });
    const call = first.output.find((i) => i.type === "function_call");
    expect(call).toMatchObject({ call_id: "call_upstream_7", arguments: '{"city":"Paris"}' });
    const second = await client.responses.create({
      model: "vllm-native",
      tools,
      input: [
        { role: "user", content: "weather in Paris?" },
        ...first.output.filter((i) => i.type === "function_call"),
        { type: "function_call_output", call_id: "call_upstream_7", output: "Hail" },
      ],
    });
    expect(second.output_text).toBe("The weather: Hail");
    const messages = e2e.upstreams[1]!.requests.at(-1)!.body.messages as Array<Record<string, unknown>>;
    expect(messages.slice(-2)).toEqual([
      {
        role: "assistant",
        content: null,
        tool_calls: [
          {
            id: "call_upstream_7",
            type: "function",
            function: { name: "get_weather", arguments: '{"city":"Paris"}' },
          },
        ],
      },
      { role: "tool", tool_call_id: "call_upstream_7", content: "Hail" },
    ]);
  });

  it("/v1/models lists the routes and their aliases", async () => {
    const models = await client.models.list();
    expect(models.data.map((m) => [m.id, m.owned_by])).toEqual([
      ["qwen3-local", "openai-compatible"],
      ["local", "openai-compatible"],
      ["one-at-a-time", "openai-compatible"],
      ["vllm-native", "openai-compatible"],
      ["xml-local", "openai-compatible"],
      ["offline-model", "openai-compatible"],
    ]);
  });

  it("an unknown model is a 404 model_not_found in OpenAI's shape, on both APIs", async () => {
    const chat = client.chat.completions.create({
      model: "gpt-nope",
      messages: [{ role: "user", content: "hi" }],
    });
    await expect(chat).rejects.toMatchObject({ status: 404, code: "model_not_found", param: "model" });
    const responses = client.responses.create({ model: "gpt-nope", input: "hi" });
    await expect(responses).rejects.toMatchObject({ status: 404, code: "model_not_found", param: "model" });
  });

  it("a down upstream: 503 naming the route (not its URL), the gateway and the other routes carry on", async () => {
    const res = await fetch(`${e2e.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "offline-model", messages: [{ role: "user", content: "hi" }] }),
    });
    expect(res.status).toBe(503);
    const body = (await res.json()) as { error: { message: string; code: string } };
    expect(body.error.code).toBe("upstream_unreachable");
    expect(body.error.message).toContain("route 'offline-model'");
    expect(body.error.message).not.toContain(String(downPort));
    expect((await fetch(`${e2e.url}/healthz`)).status).toBe(200);
    const ready = await fetch(`${e2e.url}/readyz`);
    expect(ready.status).toBe(200);
    const readiness = (await ready.json()) as {
      routes: Array<{ route: string; ready: boolean; backend: string }>;
    };
    expect(readiness.routes.map((r) => [r.route, r.backend, r.ready])).toEqual([
      ["qwen3-local", "openai-compatible", true],
      ["one-at-a-time", "openai-compatible", true],
      ["vllm-native", "openai-compatible", true],
      ["xml-local", "openai-compatible", true],
      ["offline-model", "openai-compatible", false],
    ]);
    const again = await client.chat.completions.create({
      model: "qwen3-local",
      messages: [{ role: "user", content: "hi" }],
    });
    expect(again.choices[0]?.message.content).toBe("Hello from the local model.");
  });

  it("upstream 429 → 429 with the upstream's Retry-After; 401 → 403 backend_auth naming the route", async () => {
    const post = (content: string) =>
      fetch(`${e2e.url}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "qwen3-local", messages: [{ role: "user", content }] }),
      });
    const throttled = await post("throttle me");
    expect(throttled.status).toBe(429);
    expect(throttled.headers.get("retry-after")).toBe("7");
    expect(((await throttled.json()) as { error: { type: string } }).error.type).toBe("rate_limit_error");
    const refused = await post("bad key");
    expect(refused.status).toBe(403);
    const body = (await refused.json()) as { error: { type: string; message: string } };
    expect(body.error.type).toBe("authentication_error");
    expect(body.error.message).toContain("route 'qwen3-local'");
    expect(body.error.message).toContain("apiKeyEnv");
  });

  it("a client that disconnects mid-stream cancels the upstream request", async () => {
    const before = upstream().abandoned();
    const controller = new AbortController();
    const stream = await client.chat.completions.create(
      { model: "qwen3-local", messages: [{ role: "user", content: "hang forever" }], stream: true },
      { signal: controller.signal },
    );
    const read = (async () => {
      for await (const chunk of stream) if (chunk.choices[0]?.delta.content) controller.abort();
    })();
    await read.catch(() => undefined); // the SDK may end the iteration quietly or throw on abort
    await expect.poll(() => upstream().abandoned()).toBe(before + 1);
    expect(upstream().open()).toBe(0);
  });

  it("each route has its own admission: a second turn on a full route is refused, others are not", async () => {
    const slow = client.chat.completions.create({
      model: "one-at-a-time",
      messages: [{ role: "user", content: "slow please" }],
    });
    await expect.poll(() => e2e.upstreams[0]!.open()).toBeGreaterThan(0);
    const refused = client.chat.completions.create({
      model: "one-at-a-time",
      messages: [{ role: "user", content: "hi" }],
    });
    await expect(refused).rejects.toMatchObject({
      status: 429,
      code: "overloaded",
      message: expect.stringContaining("route 'one-at-a-time' is at capacity; retry shortly"),
    });
    const other = await client.chat.completions.create({
      model: "qwen3-local",
      messages: [{ role: "user", content: "hi" }],
    });
    expect(other.choices[0]?.message.content).toBe("Hello from the local model.");
    expect((await slow).choices[0]?.message.content).toBe("slow answer");
  });

  it("/metrics labels the backend series with the route", async () => {
    const text = await (await fetch(`${e2e.url}/metrics`)).text();
    expect(text).toContain('proxy_backend_in_flight_turns{route="qwen3-local"} 0');
    expect(text).toContain('proxy_backend_queue_depth{route="offline-model"} 0');
  });
});
