import { createCountingIdGenerator, JSON_TOOL_CALL_FORMAT } from "@proxy/core";
import { describe, expect, it } from "vitest";
import { type ToolCallingOptions, toolCallingMiddleware } from "../../src/index.js";
import { promptText, type Reply, scriptedModel } from "./scripted-model.js";
import type { Sdk } from "./sdk.js";

/** A call as the model writes it once taught core's JSON block format. */
export const call = (name: string, args: unknown): string =>
  JSON_TOOL_CALL_FORMAT.renderCall(name, JSON.stringify(args));

const CITY = {
  type: "object",
  properties: { city: { type: "string" } },
  required: ["city"],
  additionalProperties: false,
} as const;

/**
 * What a text-only model wrapped by the middleware does through `generateText`/`streamText` of one
 * `ai` major: calls, multi-step loops with real executes, toolChoice, the parallel cap and the
 * corrective turn. Run for ai 7 and ai 6.
 */
export const describeToolCalling = (sdk: Sdk): void => {
  const setup = (replies: ReadonlyArray<Reply>, options: ToolCallingOptions = {}) => {
    const scripted = scriptedModel(sdk, replies);
    const model = sdk.wrapLanguageModel({
      model: scripted.model,
      middleware: toolCallingMiddleware({ ids: createCountingIdGenerator(), ...options }),
    });
    const executed: unknown[] = [];
    const weather = sdk.tool({
      description: "The weather in a city",
      inputSchema: sdk.jsonSchema<{ city: string }>(CITY),
      execute: async ({ city }) => {
        executed.push(city);
        return { city, sky: "sunny" };
      },
    });
    const time = sdk.tool({
      description: "The time in a city",
      inputSchema: sdk.jsonSchema<{ city: string }>(CITY),
      execute: async ({ city }) => `12:00 in ${city}`,
    });
    return { ...scripted, wrapped: model, tools: { weather, time }, executed };
  };

  describe(`${sdk.name}: generateText`, () => {
    it("runs a multi-step tool loop: the call executes and its result reaches the next prompt", async () => {
      const s = setup([`Let me look. ${call("weather", { city: "Paris" })}`, "It is sunny in Paris."]);
      const result = await sdk.generateText({
        model: s.wrapped,
        prompt: "Weather in Paris?",
        tools: s.tools,
        stopWhen: sdk.stepCountIs(3),
      });
      expect(result.text).toBe("It is sunny in Paris.");
      expect(result.steps).toHaveLength(2);
      const [first] = result.steps;
      expect(first?.finishReason).toBe("tool-calls");
      expect(first?.text).toBe("Let me look. ");
      expect(first?.toolCalls.map((c) => [c.toolCallId, c.toolName, c.input])).toEqual([
        ["call_1", "weather", { city: "Paris" }],
      ]);
      expect(s.executed).toEqual(["Paris"]);
      expect(result.finishReason).toBe("stop");
      // The tools are taught in the system prompt, never sent as tools to the text-only model.
      expect(s.calls[0]?.tools).toBeUndefined();
      const [system, user] = promptText(s.prompts[0] ?? []);
      expect(system).toContain("# Functions");
      expect(system).toContain("- weather — The weather in a city");
      expect(user).toBe("user: Weather in Paris?");
      // The second step reads the call back in its own format and the result as a result line.
      const second = promptText(s.prompts[1] ?? []);
      expect(second.slice(1)).toEqual([
        "user: Weather in Paris?",
        `assistant: Let me look. \n${call("weather", { city: "Paris" })}`,
        `user: [function_call_output call_id="call_1" output=${JSON.stringify(
          JSON.stringify({ city: "Paris", sky: "sunny" }),
        )}]`,
      ]);
    });

    it("returns parallel calls in order, each with its own id", async () => {
      const s = setup([call("weather", { city: "Paris" }) + call("time", { city: "Rome" }), "Done."]);
      const result = await sdk.generateText({
        model: s.wrapped,
        prompt: "Both",
        tools: s.tools,
        stopWhen: sdk.stepCountIs(2),
      });
      const calls = result.steps[0]?.toolCalls.map((c) => [c.toolCallId, c.toolName]);
      expect(calls).toEqual([
        ["call_1", "weather"],
        ["call_2", "time"],
      ]);
      expect(result.steps[0]?.toolResults.map((r) => r.output)).toEqual([
        { city: "Paris", sky: "sunny" },
        "12:00 in Rome",
      ]);
    });

    it("parallelToolCalls false: the model is told one call, and a second call is dropped", async () => {
      const s = setup([call("weather", { city: "Paris" }) + call("time", { city: "Rome" })], {
        parallelToolCalls: false,
      });
      const result = await sdk.generateText({ model: s.wrapped, prompt: "Both", tools: s.tools });
      expect(result.toolCalls.map((c) => c.toolName)).toEqual(["weather"]);
      expect(promptText(s.prompts[0] ?? [])[0]).toContain("Call at most ONE function per reply.");
    });

    it("maxToolCalls caps the calls of one step", async () => {
      const three = ["Paris", "Rome", "Oslo"].map((city) => call("weather", { city })).join("");
      const s = setup([three], { maxToolCalls: 2 });
      const result = await sdk.generateText({ model: s.wrapped, prompt: "Three", tools: s.tools });
      expect(result.toolCalls.map((c) => c.input)).toEqual([{ city: "Paris" }, { city: "Rome" }]);
    });

    it('toolChoice "required": a reply without a call is re-asked once, and the call is returned', async () => {
      const s = setup(["I think it is sunny.", call("weather", { city: "Paris" })]);
      const result = await sdk.generateText({
        model: s.wrapped,
        prompt: "Weather?",
        tools: s.tools,
        toolChoice: "required",
      });
      expect(result.toolCalls.map((c) => c.input)).toEqual([{ city: "Paris" }]);
      expect(result.text).toBe("");
      expect(result.finishReason).toBe("tool-calls");
      expect(s.prompts).toHaveLength(2);
      expect(promptText(s.prompts[0] ?? [])[0]).toContain("You MUST call at least one function");
      expect(promptText(s.prompts[1] ?? []).slice(-2)).toEqual([
        "assistant: I think it is sunny.",
        "user: Your previous reply broke the function-calling rules: it did not call any function, and a function call is required. Write your reply again from the start, following the rules exactly.",
      ]);
      // Both attempts are counted.
      expect(result.usage.inputTokens).toBe(20);
    });

    it('toolChoice "required" fails with the broken rule once the re-asks are used up', async () => {
      const s = setup(["No.", "Still no."]);
      await expect(
        sdk.generateText({ model: s.wrapped, prompt: "Weather?", tools: s.tools, toolChoice: "required" }),
      ).rejects.toThrow(
        "The model's reply broke the tool rules after 1 corrective turn(s): it did not call any function, and a function call is required.",
      );
      expect(s.prompts).toHaveLength(2);
    });

    it("a named toolChoice: a call to another tool is re-asked, and only the named tool is returned", async () => {
      const s = setup([call("time", { city: "Rome" }), call("weather", { city: "Rome" })]);
      const result = await sdk.generateText({
        model: s.wrapped,
        prompt: "Weather in Rome",
        tools: s.tools,
        toolChoice: { type: "tool", toolName: "weather" },
      });
      expect(result.toolCalls.map((c) => c.toolName)).toEqual(["weather"]);
      expect(promptText(s.prompts[0] ?? [])[0]).toContain(
        "You MUST call the function weather in this reply, and no other function.",
      );
      expect(promptText(s.prompts[1] ?? []).at(-1)).toContain(
        "it called time, but only weather may be called",
      );
    });

    it('toolChoice "none": the model is told not to call, and a block it writes anyway is text', async () => {
      const block = call("weather", { city: "Paris" });
      const s = setup([`Here: ${block}`]);
      const result = await sdk.generateText({
        model: s.wrapped,
        prompt: "Weather?",
        tools: s.tools,
        toolChoice: "none",
      });
      expect(result.toolCalls).toEqual([]);
      expect(result.text).toBe(`Here: ${block}`);
      expect(promptText(s.prompts[0] ?? [])[0]).toContain("Do NOT call any function in this reply.");
    });

    it("a strict tool: invalid arguments get one corrective re-ask, and the valid call is returned", async () => {
      const s = setup([call("weather", { city: 5 }), call("weather", { city: "Paris" })], { strict: true });
      const result = await sdk.generateText({ model: s.wrapped, prompt: "Weather?", tools: s.tools });
      expect(result.toolCalls.map((c) => c.input)).toEqual([{ city: "Paris" }]);
      expect(promptText(s.prompts[1] ?? []).at(-1)).toMatch(
        /^user: Your previous reply broke the function-calling rules: the call to weather was invalid \(.*must be string.*\)/,
      );
    });

    it("a strict tool with correctiveRetries 0 fails at once, naming the tool", async () => {
      const s = setup([call("weather", { city: 5 })], { strict: true, correctiveRetries: 0 });
      await expect(
        sdk.generateText({ model: s.wrapped, prompt: "Weather?", tools: s.tools }),
      ).rejects.toThrow(/after 0 corrective turn\(s\): the call to weather was invalid/);
      expect(s.prompts).toHaveLength(1);
    });

    it("a soft tool's mismatching call is returned as written (the SDK validates its own input)", async () => {
      const s = setup([call("weather", { city: "Paris", extra: 1 })]);
      const result = await sdk.generateText({ model: s.wrapped, prompt: "Weather?", tools: s.tools });
      // The AI SDK's own schema check refuses it as an invalid tool call; the middleware changed nothing.
      expect(result.content.find((p) => p.type === "tool-error" || p.type === "tool-call")).toBeDefined();
      expect(s.prompts).toHaveLength(1);
    });

    it("an unknown tool, or a block inside a code fence, is text, not a call", async () => {
      const fenced = `\`\`\`\n${call("weather", { city: "Paris" })}\n\`\`\``;
      const unknown = call("stocks", { ticker: "X" });
      const s = setup([`${fenced}\n${unknown}`]);
      const result = await sdk.generateText({ model: s.wrapped, prompt: "Show", tools: s.tools });
      expect(result.toolCalls).toEqual([]);
      expect(result.text).toBe(`${fenced}\n${unknown}`);
    });

    it("without tools or tool history the call reaches the model untouched", async () => {
      const s = setup(["Hello."]);
      const result = await sdk.generateText({ model: s.wrapped, system: "Be brief.", prompt: "Hi" });
      expect(result.text).toBe("Hello.");
      expect(promptText(s.prompts[0] ?? [])).toEqual(["system: Be brief.", "user: Hi"]);
    });

    it("an invalid tool name is refused before the model is called, naming the tools", async () => {
      const s = setup(["x"]);
      await expect(
        sdk.generateText({ model: s.wrapped, prompt: "x", tools: { "bad name": s.tools.weather } }),
      ).rejects.toThrow(/The tool name "bad name" is not valid/);
      expect(s.prompts).toHaveLength(0);
    });
  });

  describe(`${sdk.name}: streamText`, () => {
    it("streams text and tool-input parts with the call's id, runs the loop, and finishes each step", async () => {
      const s = setup([`Let me look. ${call("weather", { city: "Paris" })}`, "It is sunny."]);
      const result = sdk.streamText({
        model: s.wrapped,
        prompt: "Weather in Paris?",
        tools: s.tools,
        stopWhen: sdk.stepCountIs(3),
      });
      const parts = [];
      for await (const part of result.fullStream) parts.push(part);
      expect(await result.text).toBe("It is sunny.");
      const types = parts.map((p) => p.type).filter((t) => t !== "tool-input-delta" && t !== "text-delta");
      expect(types).toEqual([
        "start",
        "start-step",
        "text-start",
        "text-end",
        "tool-input-start",
        "tool-input-end",
        "tool-call",
        "tool-result",
        "finish-step",
        "start-step",
        "text-start",
        "text-end",
        "finish-step",
        "finish",
      ]);
      const input = parts.filter((p) => p.type === "tool-input-delta").map((p) => p.delta);
      expect(JSON.parse(input.join(""))).toEqual({ city: "Paris" });
      const ids = parts.flatMap((p) =>
        p.type === "tool-input-start" || p.type === "tool-input-end" || p.type === "tool-input-delta"
          ? [p.id]
          : p.type === "tool-call" || p.type === "tool-result"
            ? [p.toolCallId]
            : [],
      );
      expect(new Set(ids)).toEqual(new Set(["call_1"]));
      const steps = parts.flatMap((p) => (p.type === "finish-step" ? [p.finishReason] : []));
      expect(steps).toEqual(["tool-calls", "stop"]);
      expect(s.executed).toEqual(["Paris"]);
    });

    it('toolChoice "required": the text of a reply without a call never streams; the re-ask\'s call does', async () => {
      const s = setup(["I think it is sunny.", call("weather", { city: "Paris" })]);
      const result = sdk.streamText({
        model: s.wrapped,
        prompt: "Weather?",
        tools: s.tools,
        toolChoice: "required",
      });
      const parts = [];
      for await (const part of result.fullStream) parts.push(part);
      expect(parts.some((p) => p.type === "text-delta")).toBe(false);
      expect((await result.toolCalls).map((c) => c.input)).toEqual([{ city: "Paris" }]);
      expect(await result.finishReason).toBe("tool-calls");
      expect(s.prompts).toHaveLength(2);
    });

    it("a strict tool's corrective turn: text already streamed is not streamed twice", async () => {
      const s = setup(
        [`Checking. ${call("weather", { city: 5 })}`, `Checking. ${call("weather", { city: "Oslo" })}`],
        {
          strict: true,
        },
      );
      const result = sdk.streamText({ model: s.wrapped, prompt: "Weather?", tools: s.tools });
      expect(await result.text).toBe("Checking. ");
      expect((await result.toolCalls).map((c) => c.input)).toEqual([{ city: "Oslo" }]);
      expect(s.prompts).toHaveLength(2);
    });

    it("a broken rule past the re-asks ends the stream with an error part naming it", async () => {
      const s = setup(["No.", "No again."]);
      const result = sdk.streamText({
        model: s.wrapped,
        prompt: "Weather?",
        tools: s.tools,
        toolChoice: "required",
        onError: () => undefined,
      });
      const errors = [];
      for await (const part of result.fullStream) if (part.type === "error") errors.push(part.error);
      expect(String(errors[0])).toContain("it did not call any function, and a function call is required");
      expect(await result.finishReason).toBe("error");
    });

    it("a call cut off by the end of the reply is never a call: the stream ends with an error naming it", async () => {
      const s = setup(['Sure. <tool_call>{"name":"weather","arguments":"{\\"city\\":\\"Par']);
      const result = sdk.streamText({
        model: s.wrapped,
        prompt: "Weather?",
        tools: s.tools,
        onError: () => undefined,
      });
      const errors = [];
      for await (const part of result.fullStream) if (part.type === "error") errors.push(part.error);
      expect(String(errors[0])).toMatch(/The model's call to weather was cut off/);
      expect(await result.toolCalls).toEqual([]);
      expect(s.executed).toEqual([]);
    });

    it("the parallel cap holds in a stream too", async () => {
      const s = setup([call("weather", { city: "Paris" }) + call("time", { city: "Rome" })], {
        parallelToolCalls: false,
      });
      const result = sdk.streamText({ model: s.wrapped, prompt: "Both", tools: s.tools });
      expect((await result.toolCalls).map((c) => c.toolName)).toEqual(["weather"]);
    });
  });
};
