import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postChat, startGateway, type TestGateway } from "./support/gateway.js";
import { WEATHER_TOOL } from "./support/scripts.js";

const user = { role: "user", content: "hi" };
const ok = { model: "gpt-test", messages: [user] };

/** [case, body, expected param]; every row must be a 400 in OpenAI's error shape naming `param`. */
const ROWS: ReadonlyArray<readonly [string, unknown, string | null]> = [
  ["invalid JSON", "{not json", null],
  ["body is an array", "[]", null],
  ["missing model", { messages: [user] }, "model"],
  ["model not a string", { ...ok, model: 42 }, "model"],
  ["empty model", { ...ok, model: "" }, "model"],
  ["missing messages", { model: "gpt-test" }, "messages"],
  ["messages not an array", { ...ok, messages: { role: "user" } }, "messages"],
  ["messages empty", { ...ok, messages: [] }, "messages"],
  ["bad role", { ...ok, messages: [user, user, { role: "robot", content: "x" }] }, "messages[2].role"],
  ["message without role", { ...ok, messages: [{ content: "x" }] }, "messages[0].role"],
  ["user content not text", { ...ok, messages: [{ role: "user", content: 7 }] }, "messages[0].content"],
  [
    "bad content part type",
    { ...ok, messages: [{ role: "user", content: [{ type: "audio" }] }] },
    "messages[0].content[0].type",
  ],
  [
    "image_url without url",
    { ...ok, messages: [{ role: "user", content: [{ type: "image_url", image_url: { detail: "low" } }] }] },
    "messages[0].content[0].image_url.url",
  ],
  [
    "tool message without tool_call_id",
    { ...ok, messages: [user, { role: "tool", content: "r" }] },
    "messages[1].tool_call_id",
  ],
  [
    "assistant tool_call arguments not a string",
    {
      ...ok,
      messages: [
        user,
        {
          role: "assistant",
          tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: {} } }],
        },
      ],
    },
    "messages[1].tool_calls[0].function.arguments",
  ],
  [
    "bad tool name",
    { ...ok, tools: [{ type: "function", function: { name: "bad name!" } }] },
    "tools[0].function.name",
  ],
  ["duplicate tool names", { ...ok, tools: [WEATHER_TOOL, WEATHER_TOOL] }, "tools[1].function.name"],
  ["tools not an array", { ...ok, tools: { a: 1 } }, "tools"],
  [
    "tool_choice naming an unknown tool",
    { ...ok, tools: [WEATHER_TOOL], tool_choice: { type: "function", function: { name: "nope" } } },
    "tool_choice",
  ],
  ["tool_choice bad value", { ...ok, tools: [WEATHER_TOOL], tool_choice: "sometimes" }, "tool_choice"],
  ["tool_choice required without tools", { ...ok, tool_choice: "required" }, "tool_choice"],
  [
    "parallel_tool_calls not boolean",
    { ...ok, tools: [WEATHER_TOOL], parallel_tool_calls: "yes" },
    "parallel_tool_calls",
  ],
  ["legacy functions bad name", { ...ok, functions: [{ name: "has space" }] }, "functions[0].name"],
  ["n=2", { ...ok, n: 2 }, "n"],
  ["n=0", { ...ok, n: 0 }, "n"],
  ["bad response_format type", { ...ok, response_format: { type: "xml" } }, "response_format.type"],
  [
    "json_schema without json_schema",
    { ...ok, response_format: { type: "json_schema" } },
    "response_format.json_schema",
  ],
  ["max_tokens zero", { ...ok, max_tokens: 0 }, "max_tokens"],
  ["max_completion_tokens fractional", { ...ok, max_completion_tokens: 1.5 }, "max_completion_tokens"],
  ["bad reasoning_effort", { ...ok, reasoning_effort: "extreme" }, "reasoning_effort"],
  ["stream not boolean", { ...ok, stream: "yes" }, "stream"],
  [
    "stream_options.include_usage not boolean",
    { ...ok, stream: true, stream_options: { include_usage: 1 } },
    "stream_options.include_usage",
  ],
  ["temperature not a number", { ...ok, temperature: "hot" }, "temperature"],
  ["stop not a string or list", { ...ok, stop: 5 }, "stop"],
];

let gateway: TestGateway;
beforeAll(async () => {
  gateway = await startGateway([{ chunks: ["should never run"] }]);
});
afterAll(() => gateway.close());

describe("a tool whose schema is false", () => {
  it("is refused with a 400 naming the tool and its parameters", async () => {
    const never = { type: "function", function: { name: "never_callable", parameters: false } };
    const res = await postChat(gateway, { ...ok, tools: [WEATHER_TOOL, never] });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text)).toEqual({
      error: {
        message:
          "Invalid schema for function 'never_callable': the schema `false` accepts no arguments, so the function could never be called.",
        type: "invalid_request_error",
        param: "tools[1].function.parameters",
        code: "invalid_function_parameters",
      },
    });
    expect(gateway.backend.requests).toHaveLength(0);
  });
});

describe("bad input → 400 naming the offending param", () => {
  for (const [name, body, param] of ROWS) {
    it(name, async () => {
      const res = await postChat(gateway, body);
      expect(res.status).toBe(400);
      expect(res.headers.get("content-type")).toContain("application/json");
      const json = JSON.parse(res.text);
      expect(Object.keys(json)).toEqual(["error"]);
      expect(json.error).toEqual({
        message: expect.any(String),
        type: "invalid_request_error",
        param,
        code: expect.any(String),
      });
      expect(json.error.message.length).toBeGreaterThan(10);
      expect(gateway.backend.requests).toHaveLength(0);
    });
  }

  it("tolerates what real clients send: nulls, unknown fields, Copilot's empty assistant content", async () => {
    const res = await postChat(gateway, {
      ...ok,
      messages: [
        { role: "developer", content: [{ type: "text", text: "be brief" }] },
        user,
        {
          role: "assistant",
          content: "",
          tool_calls: [{ id: "c1", type: "function", function: { name: "get_weather", arguments: "{}" } }],
        },
        { role: "tool", tool_call_id: "c1", name: "get_weather", content: [{ type: "text", text: "sunny" }] },
      ],
      tools: [WEATHER_TOOL],
      temperature: null,
      max_tokens: null,
      n: 1,
      stream_options: null,
      some_future_field: { x: 1 },
      store: false,
      metadata: { trace: "t1" },
    });
    expect(res.status).toBe(200);
    expect(gateway.backend.requests).toHaveLength(1);
    gateway.backend.requests.length = 0;
  });
});
