import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postRaw, startGateway, type TestGateway } from "./support/gateway.js";
import { MODEL, WEATHER_TOOL } from "./support/scripts.js";

let gateway: TestGateway;
beforeAll(async () => {
  gateway = await startGateway([{ chunks: "never reached" }]);
});
afterAll(() => gateway.close());

const named = (name: string) => ({ ...WEATHER_TOOL, name });

/** [case, body, expected param] — every bad request is a 400 naming the offending path. */
const CASES: Array<[string, unknown, string | null]> = [
  ["invalid JSON", "{not json", null],
  ["missing model", { input: "hi" }, "model"],
  ["empty model", { model: "", input: "hi" }, "model"],
  ["missing input", { model: MODEL }, "input"],
  ["bad item type", { model: MODEL, input: [{ type: "bogus" }] }, "input[0].type"],
  ["bad role", { model: MODEL, input: [{ role: "robot", content: "hi" }] }, "input[0].role"],
  [
    "bad content part",
    {
      model: MODEL,
      input: [
        {
          role: "user",
          content: [
            { type: "input_text", text: "a" },
            { type: "input_file", file_id: "f" },
          ],
        },
      ],
    },
    "input[0].content[1].type",
  ],
  [
    "function_call_output without call_id",
    { model: MODEL, input: [{ type: "function_call_output", output: "x" }] },
    "input[0].call_id",
  ],
  ["item_reference without id", { model: MODEL, input: [{ type: "item_reference" }] }, "input[0].id"],
  ["bad tool name", { model: MODEL, input: "hi", tools: [named("bad name!")] }, "tools[0].name"],
  [
    "bad tool name (a tool in the Chat shape)",
    { model: MODEL, input: "hi", tools: [{ type: "function", function: { name: "no spaces allowed" } }] },
    "tools[0].function.name",
  ],
  [
    "bad tool name inside a namespace",
    {
      model: MODEL,
      input: "hi",
      tools: [{ type: "web_search" }, { type: "namespace", name: "ns", tools: [named("bad.name")] }],
    },
    "tools[1].tools[0].name",
  ],
  [
    "bad tool name inside additional_tools",
    {
      model: MODEL,
      input: [
        { type: "additional_tools", tools: [named("x y")] },
        { role: "user", content: "hi" },
      ],
    },
    "input[0].tools[0].name",
  ],
  [
    "duplicate tool names",
    { model: MODEL, input: "hi", tools: [WEATHER_TOOL, WEATHER_TOOL] },
    "tools[1].name",
  ],
  [
    "unknown forced tool",
    { model: MODEL, input: "hi", tools: [WEATHER_TOOL], tool_choice: { type: "function", name: "nope" } },
    "tool_choice",
  ],
  [
    "tool_choice required without tools",
    { model: MODEL, input: "hi", tool_choice: "required" },
    "tool_choice",
  ],
  [
    "bad tool_choice",
    { model: MODEL, input: "hi", tools: [WEATHER_TOOL], tool_choice: "sometimes" },
    "tool_choice",
  ],
  [
    "previous_response_id",
    { model: MODEL, input: "hi", previous_response_id: "resp_abc" },
    "previous_response_id",
  ],
  ["conversation", { model: MODEL, input: "hi", conversation: "conv_1" }, "conversation"],
  [
    "max_output_tokens not positive",
    { model: MODEL, input: "hi", max_output_tokens: -5 },
    "max_output_tokens",
  ],
  ["stream not boolean", { model: MODEL, input: "hi", stream: "yes" }, "stream"],
  [
    "parallel_tool_calls not boolean",
    { model: MODEL, input: "hi", parallel_tool_calls: "no" },
    "parallel_tool_calls",
  ],
  [
    "reasoning.effort unknown",
    { model: MODEL, input: "hi", reasoning: { effort: "extreme" } },
    "reasoning.effort",
  ],
  [
    "json_schema format without schema",
    { model: MODEL, input: "hi", text: { format: { type: "json_schema", name: "x" } } },
    "text.format.schema",
  ],
  ["tools not an array", { model: MODEL, input: "hi", tools: { type: "function" } }, "tools"],
];

describe("bad input → 400 in OpenAI's error shape naming param", () => {
  for (const [name, body, param] of CASES) {
    it(name, async () => {
      const res = await postRaw(`${gateway.baseURL}/responses`, body);
      expect(res.status).toBe(400);
      expect(res.headers.get("content-type")).toMatch(/application\/json/);
      const { error } = JSON.parse(res.text);
      expect(error.type).toBe("invalid_request_error");
      expect(error.param).toBe(param);
      expect(typeof error.code).toBe("string");
      expect(error.message.length).toBeGreaterThan(10);
    });
  }

  it("never reaches the backend and reports each rejection once to the observer", () => {
    expect(gateway.backend.requests).toHaveLength(0);
    expect(gateway.summaries).toHaveLength(CASES.length);
    expect(gateway.summaries.every((s) => s.api === "responses" && s.error?.kind === "invalid_request")).toBe(
      true,
    );
  });

  it("the compact endpoint validates too", async () => {
    const res = await postRaw(`${gateway.baseURL}/responses/compact`, { model: MODEL });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text).error.param).toBe("input");
  });
});
