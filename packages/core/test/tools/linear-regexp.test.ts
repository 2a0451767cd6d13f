import { describe, expect, it } from "vitest";
import { createArgumentsValidator, createSchemaCache } from "../../src/tools/index.js";

const stringWith = (pattern: string) => ({
  type: "object",
  properties: { s: { type: "string", pattern } },
  required: ["s"],
});

describe("patterns run on a linear-time engine", () => {
  it("a catastrophic-backtracking pattern answers at once, right or wrong", () => {
    const v = createArgumentsValidator([{ name: "t", strict: false, parameters: stringWith("^(a+)+$") }]);
    const started = performance.now();
    expect(v.validate("t", { s: `${"a".repeat(40)}!` })).toEqual({
      ok: false,
      message: 'arguments/s must match pattern "^(a+)+$"',
    });
    expect(v.validate("t", { s: `${"a".repeat(100_000)}!` })).toMatchObject({ ok: false });
    expect(v.validate("t", { s: "aaaa" })).toEqual({ ok: true });
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it("patternProperties and propertyNames use it too", () => {
    const v = createArgumentsValidator([
      {
        name: "t",
        strict: true,
        parameters: {
          type: "object",
          patternProperties: { "^(x+)+$": { type: "number" } },
          propertyNames: { pattern: "^(x+)+$|^ok$" },
        },
      },
    ]);
    expect(v.validate("t", { xxx: 1, ok: "s" })).toEqual({ ok: true });
    expect(v.validate("t", { xxx: "1" })).toMatchObject({ ok: false });
    expect(v.validate("t", { [`${"x".repeat(50)}!`]: 1 })).toMatchObject({
      ok: false,
      message: expect.stringContaining("property name must be valid"),
    });
  });

  it("keeps JavaScript pattern syntax: classes, unicode escapes, named groups, slashes", () => {
    const v = createArgumentsValidator([
      { name: "t", strict: true, parameters: stringWith("^(?<year>\\d{4})-\\p{L}+/\\u00e9$") },
    ]);
    expect(v.schemaError("t")).toBeUndefined();
    expect(v.validate("t", { s: "2024-abc/é" })).toEqual({ ok: true });
    expect(v.validate("t", { s: "24-abc/é" })).toMatchObject({ ok: false });
  });

  it.each([
    ["a backreference", "^(a)\\1$"],
    ["a lookahead", "^(?=a)a+$"],
    ["a lookbehind", "(?<=a)b"],
  ])("refuses %s for a strict tool (an uncompilable schema)", (_, pattern) => {
    const v = createArgumentsValidator([{ name: "t", strict: true, parameters: stringWith(pattern) }]);
    expect(v.schemaError("t")).toMatch(/is not supported by the linear-time regex engine/);
    expect(v.schemaError("t")).toContain(JSON.stringify(pattern));
  });

  it("skips such a pattern for a soft tool, with a warning on every call, other constraints still checked", () => {
    const cache = createSchemaCache();
    const v = createArgumentsValidator(
      [{ name: "t", strict: false, parameters: stringWith("^(a)\\1$") }],
      cache,
    );
    expect(v.schemaError("t")).toBeUndefined();
    expect(v.validate("t", { s: "zz" })).toEqual({
      ok: false,
      message: expect.stringMatching(/^not checked: pattern "\^\(a\)\\\\1\$" is not supported/),
    });
    expect(v.validate("t", {})).toEqual({ ok: false, message: "arguments must have required property 's'" });
    // The same schema as a strict tool, from the shared cache, is still refused.
    const strict = createArgumentsValidator(
      [{ name: "t", strict: true, parameters: stringWith("^(a)\\1$") }],
      cache,
    );
    expect(strict.schemaError("t")).toMatch(/not supported/);
  });
});
