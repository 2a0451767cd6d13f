import { describe, expect, it } from "vitest";
import { countTokens } from "../../src/index.js";

describe("countTokens (o200k_base)", () => {
  it("counts the known o200k encoding of short texts", () => {
    expect(countTokens("")).toBe(0);
    expect(countTokens("hi there")).toBe(2);
    expect(countTokens("hello world, <tool_call>")).toBe(7);
  });
});
