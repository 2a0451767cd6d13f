import { describe, expect, it } from "vitest";
import { decodeToolPolicy, isGatewayError } from "../../src/index.js";

const weather = {
  name: "get_weather",
  description: "Weather",
  parameters: { type: "object", properties: { city: { type: "string" } } },
};

const errorOf = (input: Parameters<typeof decodeToolPolicy>[0]) => {
  try {
    decodeToolPolicy(input);
  } catch (e) {
    if (isGatewayError(e)) return { kind: e.kind, param: e.param, message: e.message };
    throw e;
  }
  throw new Error("expected a decode error");
};

describe("decodeToolPolicy", () => {
  it("normalizes Chat and Responses tool shapes to one ToolSpec (D4)", () => {
    const chat = decodeToolPolicy({ tools: [{ type: "function", function: { ...weather, strict: true } }] });
    const responses = decodeToolPolicy({ tools: [{ type: "function", ...weather, strict: null }] });
    expect(chat.tools).toEqual([{ ...weather, strict: true }]);
    expect(responses.tools).toEqual([{ ...weather, strict: false }]);
    expect(chat.choice).toEqual({ type: "auto" });
    expect(chat.parallel).toBe(true);
  });

  it("accepts legacy functions/function_call and namespaced tools, ignoring hosted tool types", () => {
    const legacy = decodeToolPolicy({ functions: [weather], function_call: { name: "get_weather" } });
    expect(legacy.tools.map((t) => t.name)).toEqual(["get_weather"]);
    expect(legacy.choice).toEqual({ type: "tool", name: "get_weather" });
    const ns = decodeToolPolicy({
      tools: [
        { type: "namespace", name: "crm", tools: [{ type: "function", name: "find" }] },
        { type: "web_search" },
      ],
    });
    expect(ns.tools.map((t) => t.name)).toEqual(["find"]);
    expect(ns.ignoredToolTypes).toEqual(["web_search"]);
  });

  it.each([
    ["string", "required", { type: "required" }],
    [
      "chat object",
      { type: "function", function: { name: "get_weather" } },
      { type: "tool", name: "get_weather" },
    ],
    ["responses object", { type: "function", name: "get_weather" }, { type: "tool", name: "get_weather" }],
    ["allowed_tools", { type: "allowed_tools", mode: "required", tools: [] }, { type: "required" }],
  ])("decodes tool_choice as %s", (_label, toolChoice, expected) => {
    expect(
      decodeToolPolicy({ tools: [{ type: "function", function: weather }], tool_choice: toolChoice }).choice,
    ).toEqual(expected);
  });

  it.each([
    [
      {
        tools: [
          { type: "function", function: weather },
          { type: "function", function: { name: "bad name" } },
        ],
      },
      "tools[1].function.name",
    ],
    [
      {
        tools: [
          { type: "function", name: "a" },
          { type: "function", name: "a" },
        ],
      },
      "tools[1].name",
    ],
    [
      {
        tools: [{ type: "function", function: weather }],
        tool_choice: { type: "function", function: { name: "nope" } },
      },
      "tool_choice",
    ],
    [{ tools: "x" }, "tools"],
    [{ tools: [{ function: weather }] }, "tools[0].type"],
    [{ tools: [], tool_choice: "required" }, "tool_choice"],
    [{ tools: [{ type: "function", function: weather }], tool_choice: "sometimes" }, "tool_choice"],
    [{ tools: [{ type: "function", function: weather }], parallel_tool_calls: "yes" }, "parallel_tool_calls"],
    [{ functions: [{ name: "x".repeat(65) }] }, "functions[0].name"],
  ])("rejects bad input naming the path (%#)", (input, param) => {
    expect(errorOf(input)).toMatchObject({ kind: "invalid_request", param });
  });
});
