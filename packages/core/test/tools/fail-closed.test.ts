import { describe, expect, it } from "vitest";
import type { ToolSpec } from "../../src/model/tool-spec.js";
import { argumentShapeProblem, createArgumentsValidator, MAX_ARGUMENT_DEPTH } from "../../src/tools/index.js";
import { normalize, parseChunks, parserOptions } from "../parser/parser-harness.js";

const nested = (depth: number): unknown => {
  let v: unknown = "leaf";
  for (let i = 1; i < depth; i += 1) v = i % 2 === 0 ? { k: v } : [v];
  return v;
};

const tools: ReadonlyArray<ToolSpec> = [
  { name: "soft", strict: false, parameters: { type: "object" } },
  { name: "loose", strict: false },
  {
    name: "exact",
    strict: true,
    parameters: { type: "object", properties: { a: {} }, additionalProperties: false },
  },
  { name: "no_secret", strict: false, parameters: { type: "object", properties: { secret: false } } },
];
const tc = (name: string, args: string) => `<tool_call>{"name":"${name}","arguments":${args}}</tool_call>`;

describe("argument validation fails closed, strict and soft alike", () => {
  it("refuses __proto__, constructor and prototype keys at any depth", () => {
    for (const key of ["__proto__", "constructor", "prototype"]) {
      const deep = JSON.parse(`{"a":[{"b":{"${key}":{"polluted":true}}}]}`);
      expect(argumentShapeProblem(deep)).toBe(`arguments hold the key "${key}" (refused at any depth)`);
      expect(argumentShapeProblem(JSON.parse(`{"${key}":1}`))).toBeDefined();
    }
    expect(argumentShapeProblem({ proto: 1, constructors: [1], a: { prototypes: "x" } })).toBeUndefined();
    // A key's value that merely says the word is fine.
    expect(argumentShapeProblem({ a: "__proto__" })).toBeUndefined();
  });

  it(`bounds nesting at ${MAX_ARGUMENT_DEPTH} levels (the arguments object is level 1), iteratively`, () => {
    // nested(n) is n - 1 containers around a leaf: {a: nested(n)} nests n levels.
    expect(argumentShapeProblem({ a: nested(MAX_ARGUMENT_DEPTH) })).toBeUndefined();
    expect(argumentShapeProblem({ a: nested(MAX_ARGUMENT_DEPTH + 1) })).toBe(
      `arguments nest more than ${MAX_ARGUMENT_DEPTH} levels deep, the gateway's limit`,
    );
    // Far deeper than any stack would take recursively.
    expect(argumentShapeProblem({ a: nested(200_000) })).toBeDefined();
  });

  it("the validator refuses them for soft tools too, and a value a `false` subschema matches", () => {
    const v = createArgumentsValidator(tools);
    expect(v.validate("soft", JSON.parse('{"x":{"__proto__":{}}}'))).toMatchObject({
      ok: false,
      refused: true,
    });
    expect(v.validate("no_secret", { secret: "s" })).toMatchObject({ ok: false, refused: true });
    expect(v.validate("no_secret", { other: 1 })).toEqual({ ok: true });
    // An ordinary mismatch stays a soft warning.
    expect(v.validate("exact", { b: 1 })).toEqual({
      ok: false,
      message: "arguments must NOT have additional properties",
    });
  });

  it("a schema that is `false` is unsatisfiable (and is not taken for a missing one)", () => {
    const v = createArgumentsValidator([
      { name: "never", strict: false, parameters: false as unknown as ToolSpec["parameters"] },
      { name: "open", strict: false },
    ]);
    expect(v.unsatisfiable("never")).toBe("the schema is `false`, which no arguments satisfy");
    expect(v.unsatisfiable("open")).toBeUndefined();
    expect(v.validate("never", {})).toMatchObject({ ok: false, refused: true });
  });

  it("in prompt mode such a call is not a call: a soft one is given back as text, a strict one rejected", () => {
    const options = parserOptions(tools);
    const soft = tc("loose", '{"a":{"__proto__":{"admin":true}}}');
    expect(normalize(parseChunks([...soft], options)).slice(-2)).toEqual([
      expect.objectContaining({
        type: "tool-call-rejected",
        reason: "schema-mismatch",
        strict: false,
        index: 0,
      }),
      { type: "text-delta", delta: soft },
    ]);
    const forbidden = tc("no_secret", '{"secret":"s"}');
    expect(normalize(parseChunks([forbidden], options)).some((e) => e.type === "tool-call-end")).toBe(false);
    const strict = tc("exact", '{"a":{"constructor":{"prototype":1}}}');
    expect(parseChunks([strict], options)).toEqual([
      expect.objectContaining({
        type: "tool-call-rejected",
        strict: true,
        name: "exact",
        detail: 'arguments hold the key "constructor" (refused at any depth)',
      }),
    ]);
    const deep = tc("loose", JSON.stringify({ a: nested(MAX_ARGUMENT_DEPTH + 1) }));
    expect(parseChunks([deep], options).some((e) => e.type === "tool-call-end")).toBe(false);
  });
});
