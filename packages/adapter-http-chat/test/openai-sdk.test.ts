import { GatewayError } from "@proxy/core";
import OpenAI, { APIError } from "openai";
import type { ChatCompletionChunk } from "openai/resources/chat/completions";
import { afterEach, describe, expect, it } from "vitest";
import { startGateway, type TestGateway } from "./support/gateway.js";
import { fragments, TIME_TOOL, toolBlock, USER_ASKS, WEATHER_TOOL } from "./support/scripts.js";

const MODEL = "gpt-test";
let gateway: TestGateway | undefined;
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
});

const clientFor = (g: TestGateway) => new OpenAI({ baseURL: g.baseURL, apiKey: "test-key", maxRetries: 0 });

const weatherCall = toolBlock("get_weather", { city: "Paris" });

/** The wire rules strict clients enforce (wire-contract §5.6), checked on every streamed chunk. */
const assertChunkInvariants = (chunks: ChatCompletionChunk[]) => {
  expect(chunks[0]?.choices[0]?.delta.role).toBe("assistant");
  expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
  const finishes = chunks.filter((c) => c.choices[0]?.finish_reason != null);
  expect(finishes).toHaveLength(1);
  const seen: number[] = [];
  for (const c of chunks) {
    for (const call of c.choices[0]?.delta.tool_calls ?? []) {
      if (!seen.includes(call.index)) {
        expect(call.index).toBe(seen.length); // contiguous from 0, in order
        expect(call.id).toMatch(/^call_/);
        expect(call.type).toBe("function");
        expect(call.function?.name).toBeTruthy();
        seen.push(call.index);
      } else {
        expect(call.index).toBe(seen[seen.length - 1]); // never interleaved
        expect(call.id).toBeUndefined();
        expect(call.function?.name).toBeUndefined();
      }
    }
  }
};

describe("official openai client", () => {
  it("create (non-stream) returns tool_calls, finish_reason tool_calls, content null and real usage", async () => {
    gateway = await startGateway([
      { chunks: fragments(weatherCall), usage: { inputTokens: 120, outputTokens: 30, totalTokens: 150 } },
    ]);
    const { data, response } = await clientFor(gateway)
      .chat.completions.create({ model: MODEL, messages: [...USER_ASKS], tools: [WEATHER_TOOL] })
      .withResponse();
    expect(data.id).toBe("chatcmpl-1");
    expect(data.object).toBe("chat.completion");
    expect(data.created).toBe(1_700_000_000);
    expect(data.model).toBe(MODEL);
    const choice = data.choices[0]!;
    expect(choice.finish_reason).toBe("tool_calls");
    expect(choice.logprobs).toBeNull();
    expect(choice.message.content).toBeNull();
    expect(choice.message.refusal).toBeNull();
    expect(choice.message.tool_calls).toEqual([
      { id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
    ]);
    expect(data.usage).toEqual({ prompt_tokens: 120, completion_tokens: 30, total_tokens: 150 });
    expect(response.headers.get("x-proxy-tool-call-count")).toBe("1");
    expect(response.headers.get("x-proxy-tool-call-truncated")).toBe("false");
    expect(response.headers.get("x-proxy-output-mode")).toBe("openai-json");
    expect(response.headers.get("x-proxy-stop-after-tools-mode")).toBe("burst");
  });

  it("create (non-stream) keeps text written before the calls", async () => {
    gateway = await startGateway([{ chunks: ["Let me check. ", ...fragments(weatherCall)] }]);
    const data = await clientFor(gateway).chat.completions.create({
      model: MODEL,
      messages: [...USER_ASKS],
      tools: [WEATHER_TOOL],
    });
    expect(data.choices[0]?.message.content).toBe("Let me check. ");
    expect(data.choices[0]?.message.tool_calls).toHaveLength(1);
    expect(data.choices[0]?.finish_reason).toBe("tool_calls");
  });

  it("create (stream) yields chunks that satisfy the wire invariants, usage last", async () => {
    const calls = [
      toolBlock("get_weather", { city: "Paris" }),
      toolBlock("get_time", { tz: "Europe/Paris" }),
    ];
    gateway = await startGateway([{ chunks: fragments(`Checking.${calls.join("")}`, 5) }]);
    const stream = await clientFor(gateway).chat.completions.create({
      model: MODEL,
      messages: [...USER_ASKS],
      tools: [WEATHER_TOOL, TIME_TOOL],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks: ChatCompletionChunk[] = [];
    for await (const c of stream) chunks.push(c);
    const usageChunk = chunks.pop()!;
    expect(usageChunk.choices).toEqual([]);
    expect(usageChunk.usage).toEqual({ prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 });
    assertChunkInvariants(chunks);
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe("tool_calls");
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? "").join("");
    expect(text).toBe("Checking.");
  });

  it("chat.completions.stream() + finalChatCompletion() assembles three calls", async () => {
    const blocks = [
      toolBlock("get_weather", { city: "Paris" }),
      toolBlock("get_weather", { city: "Oslo" }),
      toolBlock("get_time", { tz: "UTC" }),
    ];
    gateway = await startGateway([{ chunks: fragments(blocks.join("\n"), 4) }]);
    const stream = clientFor(gateway).chat.completions.stream({
      model: MODEL,
      messages: [...USER_ASKS],
      tools: [WEATHER_TOOL, TIME_TOOL],
    });
    const doneArgs: string[] = [];
    stream.on("tool_calls.function.arguments.done", (e) => doneArgs.push(e.arguments));
    const final = await stream.finalChatCompletion();
    expect(final.choices[0]?.finish_reason).toBe("tool_calls");
    const calls = final.choices[0]?.message.tool_calls ?? [];
    expect(
      calls.map((c) => (c.type === "function" ? [c.id, c.function.name, c.function.arguments] : [])),
    ).toEqual([
      ["call_1", "get_weather", '{"city":"Paris"}'],
      ["call_2", "get_weather", '{"city":"Oslo"}'],
      ["call_3", "get_time", '{"tz":"UTC"}'],
    ]);
    expect(doneArgs).toEqual(['{"city":"Paris"}', '{"city":"Oslo"}', '{"tz":"UTC"}']);
  });

  it("runTools() runs the client's tool and sends its result back for the final answer", async () => {
    gateway = await startGateway((_request, turn) =>
      turn === 0 ? { chunks: fragments(weatherCall) } : { chunks: ["It is 21°C in Paris."] },
    );
    const runner = clientFor(gateway).chat.completions.runTools({
      model: MODEL,
      messages: [...USER_ASKS],
      tools: [
        {
          type: "function",
          function: {
            name: "get_weather",
            description: WEATHER_TOOL.function.description,
            parameters: WEATHER_TOOL.function.parameters,
            parse: JSON.parse,
            function: (args: { city: string }) => ({ city: args.city, celsius: 21 }),
          },
        },
      ],
    });
    expect(await runner.finalContent()).toBe("It is 21°C in Paris.");
    expect(gateway.backend.requests).toHaveLength(2);
    const second = JSON.stringify(gateway.backend.requests[1]);
    expect(second).toContain("call_1");
    expect(second).toContain(
      JSON.stringify(`output=${JSON.stringify('{"city":"Paris","celsius":21}')}`).slice(1, -1),
    );
    expect(second).toContain("get_weather"); // the echoed call is re-rendered for the model
  });

  it("streaming runTools() completes the same loop", async () => {
    gateway = await startGateway((_request, turn) =>
      turn === 0 ? { chunks: fragments(weatherCall, 3) } : { chunks: ["Sunny", " in Paris."] },
    );
    const runner = clientFor(gateway).chat.completions.runTools({
      model: MODEL,
      stream: true,
      messages: [...USER_ASKS],
      tools: [
        {
          type: "function",
          function: {
            name: "get_weather",
            description: WEATHER_TOOL.function.description,
            parameters: WEATHER_TOOL.function.parameters,
            parse: JSON.parse,
            function: () => "sunny",
          },
        },
      ],
    });
    expect(await runner.finalContent()).toBe("Sunny in Paris.");
    expect(JSON.stringify(gateway.backend.requests[1])).toContain('output=\\"sunny\\"');
  });

  it("a backend refusal before the stream starts is an HTTP error the client raises (429 + Retry-After)", async () => {
    gateway = await startGateway([
      { chunks: [], startError: new GatewayError("overloaded", "queue full", { retryAfterSeconds: 3 }) },
    ]);
    const error = await clientFor(gateway)
      .chat.completions.create({ model: MODEL, messages: [...USER_ASKS], stream: true })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(APIError);
    const api = error as APIError;
    expect(api.status).toBe(429);
    expect(api.headers?.get("retry-after")).toBe("3");
    expect(api.error).toMatchObject({ message: "queue full", type: "server_error", code: "overloaded" });
  });

  it("a failure mid-stream makes the client throw with the gateway's error", async () => {
    gateway = await startGateway([
      {
        chunks: ["Hello", " there", " again"],
        errorAfterChunks: 2,
        error: new GatewayError("backend_error", "boom"),
      },
    ]);
    const stream = await clientFor(gateway).chat.completions.create({
      model: MODEL,
      messages: [...USER_ASKS],
      stream: true,
    });
    const seen: string[] = [];
    const error = await (async () => {
      for await (const c of stream) seen.push(c.choices[0]?.delta.content ?? "");
    })().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).message).toContain("boom");
    expect(seen.join("")).toBe("Hello there");
  });
});
