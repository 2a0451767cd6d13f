import { describe, expect, it } from "vitest";
import { findToolPolicyProblem, type ToolPolicy, type ToolSpec } from "../../src/index.js";

const tool = (name: string, extra: Partial<ToolSpec> = {}): ToolSpec => ({ name, strict: false, ...extra });
const policy = (tools: ToolSpec[], extra: Partial<ToolPolicy> = {}): ToolPolicy => ({
  tools,
  choice: { type: "auto" },
  parallel: true,
  ...extra,
});

describe("findToolPolicyProblem", () => {
  it("accepts a sound policy, custom tools included", () => {
    expect(findToolPolicyProblem(policy([tool("a"), tool("apply_patch", { custom: true })]))).toBeUndefined();
    expect(
      findToolPolicyProblem(policy([tool("a")], { choice: { type: "tool", name: "a" } })),
    ).toBeUndefined();
  });

  it.each([
    [policy([tool("a"), tool("bad name")]), { kind: "invalid-name", index: 1, name: "bad name" }],
    [policy([tool("a"), tool("b"), tool("a")]), { kind: "duplicate-name", index: 2, name: "a" }],
    [
      policy([tool("a")], { choice: { type: "tool", name: "b" } }),
      { kind: "forced-tool-not-offered", name: "b" },
    ],
    [
      policy([tool("a"), tool("b")], { choice: { type: "tool", name: "b" }, allowed: ["a"] }),
      { kind: "forced-tool-not-offered", name: "b" },
    ],
    [policy([], { choice: { type: "required" } }), { kind: "required-without-tools" }],
    [
      policy([tool("a")], { choice: { type: "required" }, allowed: ["zzz"] }),
      { kind: "required-without-tools" },
    ],
  ])("finds the first problem (%#)", (p, expected) => {
    expect(findToolPolicyProblem(p)).toEqual(expected);
  });
});
