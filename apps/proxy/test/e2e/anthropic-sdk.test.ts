import Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lastUserText, type RecordedRequest, startE2E, toolCallText, transcriptOf } from "./e2e-gateway.js";

/**
 * The scripted model behind codex: answers from a tool result it is shown, calls get_weather (and
 * get_time when asked for "everything"), otherwise says hello.
 */
const model = (request: RecordedRequest) => {
  const input = lastUserText(request);
  const result = /\[function_call_output call_id="call_\w+" output=("(?:[^"\\]|\\.)*")\]/.exec(input);
  if (result)
    return {
      chunks: ["The weather: ", JSON.parse(result[1] ?? '""') as string],
      usage: { inputTokens: 300, outputTokens: 9 },
    };
  if (/everything/i.test(input))
    return {
      chunks: [
        toolCallText("get_weather", { city: "Paris" }),
        toolCallText("get_time", { tz: "Europe/Paris" }),
      ],
    };
  if (/weather/i.test(input))
    return { chunks: ["Let me check. ", toolCallText("get_weather", { city: "Paris" })] };
  return { text: "Hello from the scripted model." };
};

const WEATHER: Anthropic.Tool = {
  name: "get_weather",
  description: "Current weather for a city",
  input_schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
};
const TIME: Anthropic.Tool = {
  name: "get_time",
  description: "Current time in a timezone",
  input_schema: { type: "object", properties: { tz: { type: "string" } }, required: ["tz"] },
};
const MODEL = "claude-opus-5-5";

describe("end to end: the Anthropic SDK → /v1/messages → real codex app-server → scripted model", {
  timeout: 60_000,
}, () => {
  let e2e: Awaited<ReturnType<typeof startE2E>>;
  let client: Anthropic;
  beforeAll(async () => {
    e2e = await startE2E(model);
    client = new Anthropic({ baseURL: e2e.url, apiKey: "test", maxRetries: 0 });
  }, 60_000);
  afterAll(() => e2e?.close());

  it("messages.create: a claude-* model runs on codex's configured default model", async () => {
    const { data: message, response } = await client.messages
      .create({
        model: MODEL,
        max_tokens: 1024,
        system: "be brief",
        messages: [{ role: "user", content: "hi" }],
      })
      .withResponse();
    expect(message).toMatchObject({
      type: "message",
      role: "assistant",
      model: MODEL,
      content: [{ type: "text", text: "Hello from the scripted model." }],
      stop_reason: "end_turn",
    });
    expect(response.headers.get("request-id")).toBeTruthy();
    const upstream = e2e.provider.requests.at(-1)!;
    expect(upstream.body.model).toBe("scripted-model");
    expect(JSON.stringify(upstream.body)).not.toContain("claude-opus");
    expect(upstream.body.tools ?? []).toEqual([]);
  });

  it("messages.stream + finalMessage(): the tool_use block streamed through codex", async () => {
    const stream = client.messages.stream({
      model: MODEL,
      max_tokens: 1024,
      messages: [{ role: "user", content: "What's the weather in Paris?" }],
      tools: [WEATHER],
    });
    const final = await stream.finalMessage();
    expect(final.stop_reason).toBe("tool_use");
    expect(final.content).toHaveLength(2);
    expect(final.content[0]).toMatchObject({ type: "text", text: "Let me check. " });
    expect(final.content[1]).toEqual({
      type: "tool_use",
      id: expect.stringMatching(/^toolu_/),
      name: "get_weather",
      input: { city: "Paris" },
    });
    expect(transcriptOf(e2e.provider.requests.at(-1)!)).toContain("get_weather");
  });

  it("a tool round trip: tool_use → tool_result → the final answer", async () => {
    const messages: Anthropic.MessageParam[] = [{ role: "user", content: "Weather in Paris, please." }];
    const first = await client.messages.create({
      model: MODEL,
      max_tokens: 1024,
      messages,
      tools: [WEATHER],
    });
    const call = first.content.find((b) => b.type === "tool_use");
    if (call?.type !== "tool_use") throw new Error(`no tool_use in ${JSON.stringify(first)}`);
    messages.push({ role: "assistant", content: first.content });
    messages.push({
      role: "user",
      content: [{ type: "tool_result", tool_use_id: call.id, content: "Sunny, 24C" }],
    });
    const second = await client.messages.create({
      model: MODEL,
      max_tokens: 1024,
      messages,
      tools: [WEATHER],
    });
    expect(second.content).toEqual([{ type: "text", text: "The weather: Sunny, 24C" }]);
    expect(second.usage).toMatchObject({ output_tokens: 9 });
  });

  it("tool_choice any and tool; disable_parallel_tool_use keeps one call", async () => {
    const ask = { model: MODEL, max_tokens: 1024, tools: [WEATHER, TIME] };
    const any = await client.messages.create({
      ...ask,
      messages: [{ role: "user", content: "weather please" }],
      tool_choice: { type: "any" },
    });
    expect(any.stop_reason).toBe("tool_use");
    const forced = await client.messages.create({
      ...ask,
      messages: [{ role: "user", content: "weather please" }],
      tool_choice: { type: "tool", name: "get_weather" },
    });
    expect(forced.content.at(-1)).toMatchObject({ type: "tool_use", name: "get_weather" });
    const both = await client.messages.create({
      ...ask,
      messages: [{ role: "user", content: "everything" }],
    });
    expect(both.content.filter((b) => b.type === "tool_use")).toHaveLength(2);
    const one = await client.messages.create({
      ...ask,
      messages: [{ role: "user", content: "everything" }],
      tool_choice: { type: "auto", disable_parallel_tool_use: true },
    });
    expect(one.content.filter((b) => b.type === "tool_use")).toHaveLength(1);
  });

  it("models.list answers in Anthropic's shape; the OpenAI listing is unchanged", async () => {
    const page = await client.models.list();
    expect(page.data.length).toBeGreaterThan(0);
    expect(page.data[0]).toMatchObject({
      type: "model",
      id: expect.any(String),
      created_at: expect.any(String),
    });
    const openai = (await (await fetch(`${e2e.url}/v1/models`)).json()) as {
      object: string;
      data: unknown[];
    };
    expect(openai.object).toBe("list");
    expect(openai.data[0]).toMatchObject({ id: page.data[0]?.id, object: "model", owned_by: "codex" });
  });

  it("messages.countTokens", async () => {
    const counted = await client.messages.countTokens({
      model: MODEL,
      messages: [{ role: "user", content: "hi" }],
      tools: [WEATHER],
    });
    expect(counted.input_tokens).toBeGreaterThan(10);
  });
});
