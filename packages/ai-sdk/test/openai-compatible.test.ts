import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import {
  type ScriptedUpstream,
  startScriptedUpstream,
  type UpstreamTurn,
} from "@proxy/adapter-openai-compatible/testing";
import { createCountingIdGenerator } from "@proxy/core";
import { generateText, jsonSchema, stepCountIs, streamText, tool, wrapLanguageModel } from "ai";
import { afterEach, describe, expect, it } from "vitest";
import { toolCallingMiddleware } from "../src/index.js";
import { call } from "./support/tool-calling-suite.js";
import { completion } from "./support/upstream.js";

let upstream: ScriptedUpstream | undefined;
afterEach(async () => {
  await upstream?.close();
  upstream = undefined;
});

/** A real OpenAI-compatible text server (no native tools) playing `turns`, and the AI SDK's client for it. */
const start = async (turns: ReadonlyArray<UpstreamTurn>) => {
  upstream = await startScriptedUpstream((_request, index) => turns[Math.min(index, turns.length - 1)]);
  const chat = createOpenAICompatible({ name: "local", baseURL: upstream.url, includeUsage: true });
  const model = wrapLanguageModel({
    model: chat("upstream-model"),
    middleware: toolCallingMiddleware({ ids: createCountingIdGenerator() }),
  });
  return { model, requests: upstream.requests };
};

const weather = tool({
  description: "The weather in a city",
  inputSchema: jsonSchema<{ city: string }>({
    type: "object",
    properties: { city: { type: "string" } },
    required: ["city"],
  }),
  execute: async ({ city }) => `sunny in ${city}`,
});

type Sent = { role: string; content: unknown };

describe("over a real OpenAI-compatible text server (@ai-sdk/openai-compatible)", () => {
  it("streamText runs a tool loop: the SSE bytes split anywhere, the calls parsed, the result sent back as text", async () => {
    const reply = `Checking. ${call("weather", { city: "Lima" })}`;
    const { model, requests } = await start([
      {
        text: reply,
        splitAt: [7, 64, 65, 130, 131, 200, 260, 330],
        usage: { inputTokens: 30, outputTokens: 9 },
      },
      { chunks: ["It is ", "sunny."], usage: { inputTokens: 50, outputTokens: 3 } },
    ]);
    const result = streamText({
      model,
      tools: { weather },
      prompt: "Weather in Lima?",
      stopWhen: stepCountIs(3),
    });
    expect(await result.text).toBe("It is sunny.");
    const steps = await result.steps;
    expect(steps.map((s) => s.finishReason)).toEqual(["tool-calls", "stop"]);
    expect(steps[0]?.toolCalls.map((c) => [c.toolCallId, c.toolName, c.input])).toEqual([
      ["call_1", "weather", { city: "Lima" }],
    ]);
    expect(steps[0]?.usage.inputTokens).toBe(30);
    // The server got text only: no tools, the manifest in the system message, the call and its
    // result rendered into the history.
    expect(requests).toHaveLength(2);
    const first = requests[0]?.body ?? {};
    expect(first.tools).toBeUndefined();
    expect(first.tool_choice).toBeUndefined();
    const messages = (requests[1]?.body.messages ?? []) as Sent[];
    expect(messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "user"]);
    expect(String(messages[0]?.content)).toContain("# Functions");
    expect(messages[2]?.content).toBe(`Checking. \n${call("weather", { city: "Lima" })}`);
    expect(JSON.stringify(messages[3]?.content)).toContain(
      JSON.stringify('[function_call_output call_id="call_1" output="sunny in Lima"]').slice(1, -1),
    );
  });

  it("generateText: toolChoice required re-asks the server once and returns the call", async () => {
    const { model, requests } = await start([
      completion("Probably sunny."),
      completion(call("weather", { city: "Oslo" })),
    ]);
    const result = await generateText({
      model,
      tools: { weather },
      toolChoice: "required",
      prompt: "Weather in Oslo?",
    });
    expect(result.toolCalls.map((c) => c.input)).toEqual([{ city: "Oslo" }]);
    expect(result.finishReason).toBe("tool-calls");
    expect(result.usage.inputTokens).toBe(40);
    expect(requests).toHaveLength(2);
    const retry = (requests[1]?.body.messages ?? []) as Sent[];
    expect(retry.at(-2)).toEqual({ role: "assistant", content: "Probably sunny." });
    expect(JSON.stringify(retry.at(-1)?.content)).toContain(
      "Your previous reply broke the function-calling rules",
    );
  });

  it("aborting a stream closes the server's response (the upstream stream is not left running)", async () => {
    const { model } = await start([{ chunks: ["Thinking", " about it"], hang: true }]);
    const controller = new AbortController();
    const result = streamText({
      model,
      tools: { weather },
      prompt: "Weather?",
      abortSignal: controller.signal,
      onError: () => undefined,
    });
    for await (const part of result.fullStream) {
      if (part.type === "text-delta") {
        controller.abort();
        break;
      }
    }
    await expect.poll(() => upstream?.abandoned()).toBe(1);
  });
});
