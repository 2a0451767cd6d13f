import OpenAI from "openai";
import type { ResponseStreamEvent } from "openai/resources/responses/responses";
import { afterEach, describe, expect, it } from "vitest";
import { postRaw, startGateway, type TestGateway } from "./support/gateway.js";
import { fragments, MODEL, promptText, toolBlock, WEATHER_TOOL } from "./support/scripts.js";

let gateway: TestGateway | undefined;
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
});

const clientFor = (g: TestGateway) => new OpenAI({ baseURL: g.baseURL, apiKey: "test-key", maxRetries: 0 });

const GRAMMAR = 'start: begin_patch hunk+ end_patch\nbegin_patch: "*** Begin Patch" LF';
const APPLY_PATCH = {
  type: "custom" as const,
  name: "apply_patch",
  description: "Use the `apply_patch` tool to edit files.\nThis is a FREEFORM tool.",
  format: { type: "grammar" as const, syntax: "lark" as const, definition: GRAMMAR },
};
/** A patch with what JSON would have to escape: quotes, backslashes, newlines, a tab. */
const PATCH = '*** Begin Patch\n*** Add File: a.txt\n+say "hi" \\ there\t!\n*** End Patch';
const rawBlock = (name: string, input: string) => `<custom_tool_call>${name}\n${input}\n</custom_tool_call>`;

describe("custom (freeform) tools on /v1/responses", () => {
  it("are taught in the manifest with their own description and the grammar verbatim", async () => {
    gateway = await startGateway([{ chunks: "ok" }]);
    await clientFor(gateway).responses.create({
      model: MODEL,
      input: "edit",
      tools: [WEATHER_TOOL, APPLY_PATCH],
    });
    const { instructions } = gateway.backend.requests[0]!;
    expect(instructions).toContain("<custom_tool_call>tool_name\n");
    expect(instructions).toContain("- apply_patch (custom: free-text input)");
    expect(instructions).toContain(`description: ${APPLY_PATCH.description}`);
    expect(instructions).toContain(`input grammar (lark; the input must match it exactly):\n${GRAMMAR}`);
    // Function tools keep their JSON example; the custom tool never gets a JSON arguments example.
    expect(instructions).toContain('<tool_call>{"name":"get_weather"');
    expect(instructions).not.toContain('{"name":"apply_patch"');
  });

  it("a raw block comes back as a custom_tool_call item with the raw input (non-streaming)", async () => {
    gateway = await startGateway([{ chunks: fragments(`Patching. ${rawBlock("apply_patch", PATCH)}`) }]);
    const response = await clientFor(gateway).responses.create({
      model: MODEL,
      input: "add a.txt",
      tools: [APPLY_PATCH],
    });
    expect(response.output.at(-1)).toEqual({
      type: "custom_tool_call",
      id: "fc_1",
      call_id: "call_1",
      name: "apply_patch",
      input: PATCH,
      status: "completed",
    });
  });

  it("the JSON fallback {name, input} is a custom call too, and tool_choice {type:'custom'} forces it", async () => {
    const json = `<tool_call>${JSON.stringify({ name: "apply_patch", input: PATCH })}</tool_call>`;
    gateway = await startGateway([{ chunks: fragments(json, 5) }]);
    const response = await clientFor(gateway).responses.create({
      model: MODEL,
      input: "add a.txt",
      tools: [WEATHER_TOOL, APPLY_PATCH],
      tool_choice: { type: "custom", name: "apply_patch" },
    });
    expect(response.output).toEqual([expect.objectContaining({ type: "custom_tool_call", input: PATCH })]);
    expect(gateway.backend.requests[0]!.instructions).toContain(
      "You MUST call the function apply_patch in this reply",
    );
  });

  it("streams output_item.added, custom_tool_call_input.delta/.done and output_item.done", async () => {
    gateway = await startGateway([{ chunks: fragments(rawBlock("apply_patch", PATCH), 4) }]);
    const stream = await clientFor(gateway).responses.create({
      model: MODEL,
      input: "add a.txt",
      tools: [APPLY_PATCH],
      stream: true,
    });
    const events: ResponseStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    const types = events.map((e) => e.type);
    expect(types).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.custom_tool_call_input.delta",
      "response.custom_tool_call_input.done",
      "response.output_item.done",
      "response.completed",
    ]);
    const item = { type: "custom_tool_call", id: "fc_1", call_id: "call_1", name: "apply_patch" };
    expect(events[2]).toMatchObject({ output_index: 0, item: { ...item, input: "", status: "in_progress" } });
    expect(events[3]).toMatchObject({ item_id: "fc_1", output_index: 0, delta: PATCH });
    expect(events[4]).toMatchObject({ item_id: "fc_1", output_index: 0, input: PATCH });
    expect(events[5]).toMatchObject({ item: { ...item, input: PATCH, status: "completed" } });
    const done = events.at(-1) as Extract<ResponseStreamEvent, { type: "response.completed" }>;
    expect(done.response.output).toEqual([{ ...item, input: PATCH, status: "completed" }]);
  });

  it("custom_tool_call and custom_tool_call_output follow-ups reach the model as the raw block and its result", async () => {
    gateway = await startGateway([{ chunks: "Done." }]);
    await clientFor(gateway).responses.create({
      model: MODEL,
      tools: [APPLY_PATCH],
      input: [
        { role: "user", content: "add a.txt" },
        { type: "custom_tool_call", call_id: "call_9", name: "apply_patch", input: PATCH },
        { type: "custom_tool_call_output", call_id: "call_9", output: "Success. Updated: A a.txt" },
      ],
    });
    const prompt = promptText(gateway.backend.requests[0]!);
    expect(prompt).toContain(rawBlock("apply_patch", PATCH));
    expect(prompt).toContain('[function_call_output call_id="call_9" output="Success. Updated: A a.txt"]');
  });

  it.each([
    [{ ...APPLY_PATCH, name: "apply patch" }, "tools[0].name"],
    [
      { ...APPLY_PATCH, format: { type: "grammar", syntax: "ebnf", definition: "x" } },
      "tools[0].format.syntax",
    ],
    [{ ...APPLY_PATCH, format: { type: "grammar", syntax: "lark" } }, "tools[0].format.definition"],
  ])("a bad custom tool is a 400 naming its field (%#)", async (tool, param) => {
    gateway = await startGateway([{ chunks: "never" }]);
    const res = await postRaw(`${gateway.baseURL}/responses`, { model: MODEL, input: "x", tools: [tool] });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text).error).toMatchObject({ type: "invalid_request_error", param });
    expect(gateway.backend.requests).toHaveLength(0);
  });

  it("a function call next to a custom tool stays a function_call", async () => {
    gateway = await startGateway([{ chunks: fragments(toolBlock("get_weather", { city: "Oslo" })) }]);
    const response = await clientFor(gateway).responses.create({
      model: MODEL,
      input: "weather",
      tools: [WEATHER_TOOL, APPLY_PATCH],
    });
    expect(response.output).toEqual([
      expect.objectContaining({ type: "function_call", name: "get_weather" }),
    ]);
  });
});
