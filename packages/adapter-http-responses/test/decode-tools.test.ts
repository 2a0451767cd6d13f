import { isGatewayError } from "@proxy/core";
import { describe, expect, it } from "vitest";
import { decodeResponsesTools } from "../src/request/decode-tools.js";

const fn = (name: string) => ({ type: "function", name, parameters: { type: "object", properties: {} } });
const custom = {
  type: "custom",
  name: "apply_patch",
  format: { type: "grammar", syntax: "lark", definition: "s" },
};

const errorOf = (...args: Parameters<typeof decodeResponsesTools>) => {
  try {
    decodeResponsesTools(...args);
  } catch (e) {
    if (isGatewayError(e)) return { param: e.param, message: e.message };
    throw e;
  }
  throw new Error("expected a decode error");
};

describe("decodeResponsesTools", () => {
  it("gathers function and custom tools from tools, namespaces and additional_tools carriers", () => {
    const { policy, namespaces } = decodeResponsesTools(
      { tools: [fn("a"), { type: "web_search" }, custom] },
      [
        {
          path: "input[0].tools",
          tools: [
            {
              type: "namespace",
              name: "functions",
              tools: [{ type: "custom", name: "exec" }, fn("a"), fn("wait")],
            },
          ],
        },
      ],
    );
    expect(policy.tools.map((t) => [t.name, t.custom === true])).toEqual([
      ["a", false],
      ["apply_patch", true],
      ["exec", true],
      ["wait", false],
    ]);
    expect(policy.tools[1]?.grammar).toEqual({ syntax: "lark", definition: "s" });
    expect([...namespaces]).toEqual([
      ["exec", "functions"],
      ["wait", "functions"],
    ]);
  });

  it.each([
    [
      { type: "custom", name: "apply_patch" },
      { type: "tool", name: "apply_patch" },
    ],
    [{ type: "web_search_preview" }, { type: "auto" }],
    [
      { type: "allowed_tools", mode: "required", tools: [{ type: "custom", name: "apply_patch" }] },
      { type: "required" },
    ],
  ])("decodes tool_choice %j", (toolChoice, expected) => {
    expect(
      decodeResponsesTools({ tools: [fn("a"), custom], tool_choice: toolChoice }, []).policy.choice,
    ).toEqual(expected);
  });

  it("names the carrier path of a bad or duplicate tool", () => {
    expect(
      errorOf({ tools: [] }, [
        { path: "input[2].tools", tools: [fn("a"), { type: "function", name: "b c" }] },
      ]),
    ).toMatchObject({
      param: "input[2].tools[1].name",
    });
    expect(errorOf({ tools: [fn("a"), { ...custom, name: "a" }] }, [])).toEqual({
      param: "tools[1].name",
      message: "Duplicate tool name 'a' in 'tools[1].name'.",
    });
    expect(errorOf({ tools: [fn("a")], tool_choice: { type: "custom", name: "zzz" } }, [])).toEqual({
      param: "tool_choice",
      message: "Tool choice 'zzz' is not one of the provided tools.",
    });
  });
});
