import { isGatewayError } from "@proxy/core";
import { describe, expect, it } from "vitest";
import { type ChatToolFields, decodeChatTools } from "../src/request/decode-tools.js";

const weather = {
  name: "get_weather",
  description: "Weather",
  parameters: { type: "object", properties: { city: { type: "string" } } },
};
const patchGrammar = { syntax: "lark", definition: "start: begin_patch hunk+ end_patch" } as const;

const errorOf = (fields: ChatToolFields) => {
  try {
    decodeChatTools(fields);
  } catch (e) {
    if (isGatewayError(e)) return { kind: e.kind, param: e.param, message: e.message };
    throw e;
  }
  throw new Error("expected a decode error");
};

describe("decodeChatTools", () => {
  it("decodes both function shapes, legacy functions and namespaces to one canonical ToolSpec", () => {
    const nested = decodeChatTools({ tools: [{ type: "function", function: { ...weather, strict: true } }] });
    const flat = decodeChatTools({ tools: [{ type: "function", ...weather, strict: null }] });
    expect(nested.tools).toEqual([{ ...weather, strict: true }]);
    expect(flat.tools).toEqual([{ ...weather, strict: false }]);
    expect(nested).toMatchObject({ choice: { type: "auto" }, parallel: true, parallelDefaulted: true });
    const legacy = decodeChatTools({ functions: [weather], function_call: { name: "get_weather" } });
    expect(legacy).toMatchObject({ choice: { type: "tool", name: "get_weather" }, parallel: false });
    const ns = decodeChatTools({
      tools: [
        { type: "namespace", name: "crm", tools: [{ type: "function", name: "find" }] },
        { type: "web_search" },
      ],
    });
    expect(ns.tools.map((t) => t.name)).toEqual(["find"]);
  });

  it("decodes a custom tool with its grammar; tool_choice {type:'custom'} forces it", () => {
    const policy = decodeChatTools({
      tools: [
        {
          type: "custom",
          custom: {
            name: "apply_patch",
            description: "Edit files",
            format: { type: "grammar", grammar: patchGrammar },
          },
        },
        { type: "custom", custom: { name: "note", format: { type: "text" } } },
      ],
      tool_choice: { type: "custom", custom: { name: "apply_patch" } },
    });
    expect(policy.tools).toEqual([
      { name: "apply_patch", description: "Edit files", strict: false, custom: true, grammar: patchGrammar },
      { name: "note", description: undefined, strict: false, custom: true, grammar: undefined },
    ]);
    expect(policy.choice).toEqual({ type: "tool", name: "apply_patch" });
  });

  it.each([
    ["string", "required", { type: "required" }],
    [
      "chat object",
      { type: "function", function: { name: "get_weather" } },
      { type: "tool", name: "get_weather" },
    ],
    ["flat object", { type: "function", name: "get_weather" }, { type: "tool", name: "get_weather" }],
    ["allowed_tools", { type: "allowed_tools", mode: "required", tools: [] }, { type: "required" }],
  ])("decodes tool_choice as %s", (_label, toolChoice, expected) => {
    expect(
      decodeChatTools({ tools: [{ type: "function", function: weather }], tool_choice: toolChoice }).choice,
    ).toEqual(expected);
  });

  it.each<[ChatToolFields, string]>([
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
    [{ functions: [weather], function_call: { name: "nope" } }, "function_call"],
    [{ tools: "x" }, "tools"],
    [{ tools: [{ function: weather }] }, "tools[0].type"],
    [{ tools: [{ type: "custom" }] }, "tools[0].custom"],
    [
      {
        tools: [
          {
            type: "custom",
            custom: { name: "p", format: { type: "grammar", grammar: { syntax: "ebnf", definition: "x" } } },
          },
        ],
      },
      "tools[0].custom.format.grammar.syntax",
    ],
    [{ tools: [], tool_choice: "required" }, "tool_choice"],
    [{ tools: [{ type: "function", function: weather }], tool_choice: "sometimes" }, "tool_choice"],
    [{ tools: [{ type: "function", function: weather }], parallel_tool_calls: "yes" }, "parallel_tool_calls"],
    [{ functions: [{ name: "x".repeat(65) }] }, "functions[0].name"],
  ])("rejects bad input naming the path (%#)", (fields, param) => {
    expect(errorOf(fields)).toMatchObject({ kind: "invalid_request", param });
  });
});
