import OpenAI, { APIError } from "openai";
import type { ResponseStreamEvent } from "openai/resources/responses/responses";
import { afterEach, describe, expect, it } from "vitest";
import { startGateway, type TestGateway } from "./support/gateway.js";
import { fragments, MODEL, promptText, TIME_TOOL, toolBlock, WEATHER_TOOL } from "./support/scripts.js";

let gateway: TestGateway | undefined;
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
});

const clientFor = (g: TestGateway) => new OpenAI({ baseURL: g.baseURL, apiKey: "test-key", maxRetries: 0 });
const weather = toolBlock("get_weather", { city: "Paris" });

describe("official openai client (7.57)", () => {
  it("responses.create (non-stream) returns function_call items with id, call_id and string arguments", async () => {
    gateway = await startGateway([
      {
        chunks: fragments(`Checking. ${weather}`),
        usage: { inputTokens: 120, outputTokens: 30, totalTokens: 150, cachedInputTokens: 20 },
      },
    ]);
    const response = await clientFor(gateway).responses.create({
      model: MODEL,
      input: "Weather in Paris?",
      tools: [WEATHER_TOOL],
    });
    expect(response).toMatchObject({
      id: "resp_1",
      object: "response",
      status: "completed",
      model: MODEL,
      created_at: 1_700_000_000,
    });
    expect(response.output).toEqual([
      {
        type: "message",
        id: "msg_1",
        status: "completed",
        role: "assistant",
        content: [{ type: "output_text", text: "Checking. ", annotations: [], logprobs: [] }],
      },
      {
        type: "function_call",
        id: "fc_1",
        call_id: "call_1",
        name: "get_weather",
        arguments: '{"city":"Paris"}',
        status: "completed",
      },
    ]);
    expect(response.output_text).toBe("Checking. ");
    expect(response.usage).toEqual({
      input_tokens: 120,
      input_tokens_details: { cached_tokens: 20 },
      output_tokens: 30,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 150,
    });
    expect(response.error).toBeNull();
    expect(response.incomplete_details).toBeNull();
    expect(response.tools).toEqual([WEATHER_TOOL]);
  });

  it("responses.stream() + finalResponse() accepts text, reasoning and three calls (v7 accumulator)", async () => {
    gateway = await startGateway([
      {
        reasoning: ["Two cities", " and a clock."],
        chunks: fragments(
          `On it. ${toolBlock("get_weather", { city: "Paris" })}${toolBlock("get_weather", { city: "Oslo" })}${toolBlock("get_time", { tz: "UTC" })}`,
          5,
        ),
      },
    ]);
    const stream = clientFor(gateway).responses.stream({
      model: MODEL,
      input: "Weather in Paris and Oslo, and the time?",
      tools: [WEATHER_TOOL, TIME_TOOL],
    });
    const types: string[] = [];
    stream.on("event", (e: ResponseStreamEvent) => types.push(e.type));
    const final = await stream.finalResponse();
    expect(final.status).toBe("completed");
    expect(final.output.map((o) => o.type)).toEqual([
      "reasoning",
      "message",
      "function_call",
      "function_call",
      "function_call",
    ]);
    const calls = final.output.filter((o) => o.type === "function_call");
    expect(calls.map((c) => [c.call_id, c.name, c.arguments])).toEqual([
      ["call_1", "get_weather", '{"city":"Paris"}'],
      ["call_2", "get_weather", '{"city":"Oslo"}'],
      ["call_3", "get_time", '{"tz":"UTC"}'],
    ]);
    expect(final.output[0]).toEqual({
      type: "reasoning",
      id: "rs_1",
      summary: [{ type: "summary_text", text: "Two cities and a clock." }],
    });
    expect(types[0]).toBe("response.created");
    expect(types.at(-1)).toBe("response.completed");
    expect(types.filter((t) => t === "response.function_call_arguments.done")).toHaveLength(3);
  });

  it("responses.create({stream:true}) yields typed events ending in response.completed with usage", async () => {
    gateway = await startGateway([{ chunks: fragments("Plain answer.") }]);
    const events = await clientFor(gateway).responses.create({ model: MODEL, input: "hi", stream: true });
    const seen: ResponseStreamEvent[] = [];
    for await (const e of events) seen.push(e);
    expect(seen.map((e) => e.sequence_number)).toEqual(seen.map((_, i) => i));
    const last = seen.at(-1);
    expect(last?.type).toBe("response.completed");
    if (last?.type === "response.completed") {
      expect(last.response.output).toHaveLength(1);
      expect(last.response.usage).toMatchObject({ input_tokens: 10, output_tokens: 5, total_tokens: 15 });
    }
    const text = seen.flatMap((e) => (e.type === "response.output_text.delta" ? [e.delta] : [])).join("");
    expect(text).toBe("Plain answer.");
  });

  it("a follow-up carrying the echoed function_call and its function_call_output reaches the backend", async () => {
    gateway = await startGateway([
      { chunks: fragments(weather) },
      { chunks: fragments("It is sunny in Paris.") },
    ]);
    const client = clientFor(gateway);
    const first = await client.responses.create({
      model: MODEL,
      input: "Weather in Paris?",
      tools: [WEATHER_TOOL],
    });
    const call = first.output.find((o) => o.type === "function_call");
    if (call?.type !== "function_call") throw new Error("expected a function call");
    const second = await client.responses.create({
      model: MODEL,
      tools: [WEATHER_TOOL],
      input: [
        { role: "user", content: "Weather in Paris?" },
        // SDK types disagree on output vs input items under exactOptionalPropertyTypes; the wire is the point.
        ...(first.output as OpenAI.Responses.ResponseInputItem[]),
        { type: "function_call_output", call_id: call.call_id, output: '{"sky":"sunny","c":24}' },
      ],
    });
    expect(second.output_text).toBe("It is sunny in Paris.");
    const prompt = promptText(gateway.backend.requests[1]!);
    expect(prompt).toContain(`output=${JSON.stringify('{"sky":"sunny","c":24}')}`);
    expect(prompt).toContain(call.call_id);
  });

  it("a pre-start backend failure is an HTTP error the client throws as APIError", async () => {
    const { GatewayError } = await import("@proxy/core");
    gateway = await startGateway([
      {
        chunks: [],
        startError: new GatewayError("overloaded", "Too many requests in flight.", { retryAfterSeconds: 3 }),
      },
    ]);
    const error = await clientFor(gateway)
      .responses.create({ model: MODEL, input: "hi" })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).status).toBe(429);
    expect((error as APIError).headers?.get("retry-after")).toBe("3");
    expect((error as APIError).error).toMatchObject({ type: "server_error", code: "overloaded" });
  });

  it("responses.compact() returns the user messages and one compaction item written by the backend", async () => {
    gateway = await startGateway([
      { chunks: fragments("Summary: the user asked about Paris weather; it was sunny.") },
    ]);
    const compacted = await clientFor(gateway).responses.compact({
      model: MODEL,
      input: [
        { role: "user", content: "Weather in Paris?" },
        { type: "function_call", call_id: "call_9", name: "get_weather", arguments: '{"city":"Paris"}' },
        { type: "function_call_output", call_id: "call_9", output: "sunny" },
      ],
    });
    expect(compacted.object).toBe("response.compaction");
    expect(compacted.output.at(-1)).toEqual({
      type: "compaction",
      id: "cmp_1",
      encrypted_content: "Summary: the user asked about Paris weather; it was sunny.",
    });
    expect(compacted.output[0]).toMatchObject({ type: "message", role: "user" });
    expect(compacted.usage).toMatchObject({ input_tokens: 10, output_tokens: 5, total_tokens: 15 });
    expect(promptText(gateway.backend.requests[0]!)).toMatch(/handoff summary/);
  });

  it("responses.retrieve() is a 404 in OpenAI's shape with param response_id", async () => {
    gateway = await startGateway([{ chunks: "unused" }]);
    const error = await clientFor(gateway)
      .responses.retrieve("resp_123")
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).status).toBe(404);
    expect((error as APIError).error).toMatchObject({
      code: "not_found",
      param: "response_id",
      type: "invalid_request_error",
    });
  });
});
