import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { customCallArguments, customCallInput } from "../../src/index.js";

describe("custom call arguments", () => {
  it("round-trips any raw input", () => {
    fc.assert(fc.property(fc.string(), (input) => customCallInput(customCallArguments(input)) === input));
  });

  it("keeps other JSON as it is and gives '' for a call cut off midway", () => {
    expect(customCallInput('{"patch":"x"}')).toBe('{"patch":"x"}');
    expect(customCallInput('{"input":"*** Begin')).toBe("");
  });
});
