import OpenAI from "openai";
import type { ChatCompletionChunk, ChatCompletionCustomTool } from "openai/resources/chat/completions";
import { afterEach, describe, expect, it } from "vitest";
import { postChat, startGateway, type TestGateway } from "./support/gateway.js";
import { fragments, toolBlock, WEATHER_TOOL } from "./support/scripts.js";

const MODEL = "gpt-test";
let gateway: TestGateway | undefined;
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
});

const clientFor = (g: TestGateway) => new OpenAI({ baseURL: g.baseURL, apiKey: "test-key", maxRetries: 0 });

const GRAMMAR = "/^\\*\\*\\* Begin Patch\\n[\\s\\S]*\\*\\*\\* End Patch$/";
const APPLY_PATCH: ChatCompletionCustomTool = {
  type: "custom",
  custom: {
    name: "apply_patch",
    description: "Edit files with a patch.",
    format: { type: "grammar", grammar: { syntax: "regex", definition: GRAMMAR } },
  },
};
const PATCH = '*** Begin Patch\n*** Add File: a.txt\n+say "hi" \\ there\n*** End Patch';
const rawBlock = `<custom_tool_call>apply_patch\n${PATCH}\n</custom_tool_call>`;
const ASK = [{ role: "user" as const, content: "Add a.txt" }];

describe("custom (freeform) tools on /v1/chat/completions", () => {
  it("a call comes back as tool_calls[i] = {id, type:'custom', custom:{name, input}} (non-streaming)", async () => {
    gateway = await startGateway([{ chunks: fragments(rawBlock, 5) }]);
    const completion = await clientFor(gateway).chat.completions.create({
      model: MODEL,
      messages: ASK,
      tools: [WEATHER_TOOL, APPLY_PATCH],
    });
    expect(completion.choices[0]).toMatchObject({
      finish_reason: "tool_calls",
      message: {
        content: null,
        tool_calls: [{ id: "call_1", type: "custom", custom: { name: "apply_patch", input: PATCH } }],
      },
    });
    const { instructions } = gateway.backend.requests[0]!;
    expect(instructions).toContain("- apply_patch (custom: free-text input)");
    expect(instructions).toContain(`input grammar (regex; the input must match it exactly):\n${GRAMMAR}`);
  });

  it("streams the custom call: name and id first, the raw input whole when the call ends", async () => {
    gateway = await startGateway([{ chunks: fragments(`Sure. ${rawBlock}`, 4) }]);
    const stream = await clientFor(gateway).chat.completions.create({
      model: MODEL,
      messages: ASK,
      tools: [APPLY_PATCH],
      tool_choice: { type: "custom", custom: { name: "apply_patch" } },
      stream: true,
    });
    const chunks: ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    const calls = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
    expect(calls).toEqual([
      { index: 0, id: "call_1", type: "custom", custom: { name: "apply_patch", input: "" } },
      { index: 0, custom: { input: PATCH } },
    ]);
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe("tool_calls");
  });

  it("an echoed custom call and its tool message reach the model as the raw block and its result", async () => {
    gateway = await startGateway([{ chunks: "Done." }]);
    await clientFor(gateway).chat.completions.create({
      model: MODEL,
      tools: [APPLY_PATCH],
      messages: [
        ...ASK,
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "call_7", type: "custom", custom: { name: "apply_patch", input: PATCH } }],
        },
        { role: "tool", tool_call_id: "call_7", content: "Success." },
      ],
    });
    const request = gateway.backend.requests[0]!;
    const seen = JSON.stringify([request.history, request.input]);
    expect(seen).toContain(JSON.stringify(rawBlock).slice(1, -1));
    expect(seen).toContain(
      JSON.stringify('[function_call_output call_id="call_7" output="Success."]').slice(1, -1),
    );
  });

  it("a function call next to a custom tool keeps the function shape", async () => {
    gateway = await startGateway([{ chunks: fragments(toolBlock("get_weather", { city: "Paris" })) }]);
    const completion = await clientFor(gateway).chat.completions.create({
      model: MODEL,
      messages: ASK,
      tools: [WEATHER_TOOL, APPLY_PATCH],
    });
    expect(completion.choices[0]?.message.tool_calls).toEqual([
      { id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
    ]);
  });

  it.each([
    [[{ type: "custom", name: "apply_patch" }], "tools[0].custom"],
    [[{ type: "custom", custom: { name: "a b" } }], "tools[0].custom.name"],
  ])("a bad custom tool is a 400 naming its field (%#)", async (tools, param) => {
    gateway = await startGateway([{ chunks: "never" }]);
    const res = await postChat(gateway, { model: MODEL, messages: ASK, tools });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text).error).toMatchObject({ type: "invalid_request_error", param });
  });

  it("an echoed custom call without `custom` is a 400 naming it", async () => {
    gateway = await startGateway([{ chunks: "never" }]);
    const res = await postChat(gateway, {
      model: MODEL,
      messages: [...ASK, { role: "assistant", tool_calls: [{ id: "c", type: "custom" }] }],
    });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text).error).toMatchObject({ param: "messages[1].tool_calls[0].custom" });
  });
});
