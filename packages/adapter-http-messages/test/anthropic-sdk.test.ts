import Anthropic from "@anthropic-ai/sdk";
import { GatewayError } from "@proxy/core";
import type { ScriptedTurn } from "@proxy/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGateway, type TestGateway } from "./support/gateway.js";
import { fragments, TIME_TOOL, toolBlock, WEATHER_TOOL } from "./support/scripts.js";

const MODEL = "claude-opus-5-5";

const textOf = (parts: ReadonlyArray<{ type: string; text?: string }>) =>
  parts.map((p) => (p.type === "text" ? p.text : "")).join("");

/**
 * The scripted model: answers from a tool result it is shown, calls tools when the user asks for
 * weather (both tools when asked for "everything"), fails with an overload on "overload".
 */
const model = (request: { input: ReadonlyArray<{ type: string; text?: string }> }): ScriptedTurn => {
  const input = textOf(request.input);
  if (/Sunny/.test(input)) return { chunks: ["It is sunny in Paris."] };
  if (/break down/.test(input))
    return {
      chunks: ["Partial ", "answer"],
      errorAfterChunks: 1,
      error: new GatewayError("backend_unavailable", "codex app-server died mid-turn"),
    };
  if (/count/.test(input)) return { chunks: ["Counting: 1, 2", ", 3, 4 END"] };
  if (/overload/.test(input))
    return { chunks: [], startError: new GatewayError("overloaded", "Too many requests in flight.") };
  if (/everything/.test(input))
    return {
      chunks: fragments(
        `${toolBlock("get_weather", { city: "Paris" })}${toolBlock("get_time", { tz: "Europe/Paris" })}`,
      ),
    };
  if (/weather/i.test(input))
    return { chunks: fragments(`Let me check. ${toolBlock("get_weather", { city: "Paris" })}`) };
  return { chunks: ["Hello", " from the gateway."] };
};

describe("the Anthropic TypeScript SDK against the Messages surface", () => {
  let gateway: TestGateway;
  let client: Anthropic;
  beforeAll(async () => {
    gateway = await startGateway((request) => model(request));
    client = new Anthropic({ baseURL: gateway.url, apiKey: "test", maxRetries: 0 });
  });
  afterAll(() => gateway?.close());

  it("a turn ending on one of several stop sequences names it, streaming or not", async () => {
    const request = {
      model: MODEL,
      max_tokens: 256,
      stop_sequences: ["END", ", 3", "never"],
      messages: [{ role: "user" as const, content: "count for me" }],
    };
    const message = await client.messages.create(request);
    expect(message).toMatchObject({
      content: [{ type: "text", text: "Counting: 1, 2" }],
      stop_reason: "stop_sequence",
      stop_sequence: ", 3",
    });
    const streamed = await client.messages.stream(request).finalMessage();
    expect(streamed).toMatchObject({ stop_reason: "stop_sequence", stop_sequence: ", 3" });
  });

  it("messages.create: a text message with usage", async () => {
    const message = await client.messages.create({
      model: MODEL,
      max_tokens: 256,
      system: "be brief",
      messages: [{ role: "user", content: "Say hello" }],
    });
    expect(message).toMatchObject({
      type: "message",
      role: "assistant",
      model: MODEL,
      content: [{ type: "text", text: "Hello from the gateway." }],
      stop_reason: "end_turn",
      usage: { input_tokens: 10, output_tokens: 5 },
    });
    expect(message.id).toMatch(/^msg_/);
    expect(gateway.backend.requests.at(-1)?.instructions).toContain("be brief");
  });

  it("messages.stream + finalMessage(): text deltas and a tool_use block with parsed input", async () => {
    const stream = client.messages.stream({
      model: MODEL,
      max_tokens: 256,
      messages: [{ role: "user", content: "weather in Paris?" }],
      tools: [WEATHER_TOOL as Anthropic.Tool],
    });
    const texts: string[] = [];
    const snapshots: unknown[] = [];
    stream.on("text", (t) => texts.push(t));
    stream.on("inputJson", (_delta, snapshot) => snapshots.push(snapshot));
    const final = await stream.finalMessage();
    expect(texts.join("")).toBe("Let me check. ");
    expect(final.stop_reason).toBe("tool_use");
    const call = final.content[1];
    expect(call).toMatchObject({ type: "tool_use", name: "get_weather", input: { city: "Paris" } });
    expect(call?.type === "tool_use" && call.id).toMatch(/^toolu_/);
    expect(snapshots.at(-1)).toEqual({ city: "Paris" });
  });

  it("a tool round trip: the tool_result reaches the model and the answer comes back", async () => {
    const tools = [WEATHER_TOOL as Anthropic.Tool];
    const messages: Anthropic.MessageParam[] = [{ role: "user", content: "weather in Paris?" }];
    const first = await client.messages.create({ model: MODEL, max_tokens: 256, messages, tools });
    const call = first.content.find((b) => b.type === "tool_use");
    if (call?.type !== "tool_use") throw new Error("no tool_use");
    messages.push({ role: "assistant", content: first.content });
    messages.push({
      role: "user",
      content: [{ type: "tool_result", tool_use_id: call.id, content: "Sunny, 24°C" }],
    });
    const second = await client.messages.create({ model: MODEL, max_tokens: 256, messages, tools });
    expect(second.content).toEqual([{ type: "text", text: "It is sunny in Paris." }]);
    expect(second.stop_reason).toBe("end_turn");
    const seen = gateway.backend.requests.at(-1)!;
    // The backend sees the call id it produced (`toolu_X` is the client's spelling of `call_X`).
    expect(textOf(seen.input)).toContain(call.id.replace(/^toolu_/, "call_"));
    expect(JSON.stringify(seen.history)).toContain("get_weather");
  });

  it("tool_choice any and tool: the model must call; a forced tool narrows the offer", async () => {
    const any = await client.messages.create({
      model: MODEL,
      max_tokens: 256,
      messages: [{ role: "user", content: "weather please" }],
      tools: [WEATHER_TOOL as Anthropic.Tool, TIME_TOOL as Anthropic.Tool],
      tool_choice: { type: "any" },
    });
    expect(any.stop_reason).toBe("tool_use");
    const forced = await client.messages.create({
      model: MODEL,
      max_tokens: 256,
      messages: [{ role: "user", content: "weather please" }],
      tools: [WEATHER_TOOL as Anthropic.Tool, TIME_TOOL as Anthropic.Tool],
      tool_choice: { type: "tool", name: "get_weather" },
    });
    expect(forced.content.at(-1)).toMatchObject({ type: "tool_use", name: "get_weather" });
    expect(gateway.backend.requests.at(-1)?.instructions).toMatch(/get_weather/);
  });

  it("disable_parallel_tool_use: at most one tool_use block", async () => {
    const body = {
      model: MODEL,
      max_tokens: 256,
      messages: [{ role: "user" as const, content: "everything please" }],
      tools: [WEATHER_TOOL as Anthropic.Tool, TIME_TOOL as Anthropic.Tool],
    };
    const parallel = await client.messages.create(body);
    expect(parallel.content.filter((b) => b.type === "tool_use")).toHaveLength(2);
    const single = await client.messages.create({
      ...body,
      tool_choice: { type: "auto", disable_parallel_tool_use: true },
    });
    expect(
      single.content.filter((b) => b.type === "tool_use").map((b) => b.type === "tool_use" && b.name),
    ).toEqual(["get_weather"]);
  });

  it("errors are typed: an overload is a 529 OverloadedError with a request id", async () => {
    const error = await client.messages
      .create({ model: MODEL, max_tokens: 16, messages: [{ role: "user", content: "overload" }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.InternalServerError);
    expect(error).toMatchObject({
      status: 529,
      error: { type: "error", error: { type: "overloaded_error" } },
    });
    expect((error as InstanceType<typeof Anthropic.APIError>).requestID).toMatch(/^req_/);
  });

  it("messages.countTokens: the rendered prompt counted with the gateway's tokenizer", async () => {
    const small = await client.messages.countTokens({
      model: MODEL,
      messages: [{ role: "user", content: "hi" }],
    });
    const withTool = await client.messages.countTokens({
      model: MODEL,
      messages: [{ role: "user", content: "hi" }],
      tools: [WEATHER_TOOL as Anthropic.Tool],
    });
    expect(small.input_tokens).toBeGreaterThan(0);
    expect(withTool.input_tokens).toBeGreaterThan(small.input_tokens);
  });

  it("an error event mid-stream makes messages.stream() throw an APIError with Anthropic's error", async () => {
    const stream = client.messages.stream({
      model: MODEL,
      max_tokens: 64,
      messages: [{ role: "user", content: "break down" }],
    });
    const error = await stream.finalMessage().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect(error).toMatchObject({ error: { type: "error", error: { type: "overloaded_error" } } });
  });
});
