import { describe, expect, it } from "vitest";
import { createArgumentsValidator, createSchemaCache } from "../../src/tools/index.js";

const properties = { query: { type: "string" }, limit: { type: "integer", minimum: 1 } };

describe("arguments validator (ajv)", () => {
  it("validates draft 2020-12 schemas as Copilot sends them ($schema declared)", () => {
    const v = createArgumentsValidator([
      {
        name: "localSearch",
        strict: false,
        parameters: {
          $schema: "https://json-schema.org/draft/2020-12/schema",
          type: "object",
          properties: {
            ...properties,
            salientTerms: { type: "array", prefixItems: [{ type: "string" }], items: false },
          },
          required: ["query"],
          additionalProperties: false,
        },
      },
    ]);
    expect(v.validate("localSearch", { query: "x", salientTerms: ["a"] })).toEqual({ ok: true });
    expect(v.validate("localSearch", { query: "x", salientTerms: ["a", "b"] })).toEqual({
      ok: false,
      message: "arguments/salientTerms must NOT have more than 1 items",
    });
    expect(v.validate("localSearch", { limit: 2 })).toEqual({
      ok: false,
      message: "arguments must have required property 'query'",
    });
    expect(v.schemaError("localSearch")).toBeUndefined();
  });

  it("tolerates draft-07 schemas (tuple `items`, definitions/$ref)", () => {
    const v = createArgumentsValidator([
      {
        name: "pair",
        strict: true,
        parameters: {
          $schema: "http://json-schema.org/draft-07/schema#",
          type: "object",
          definitions: { n: { type: "number" } },
          properties: {
            xy: { type: "array", items: [{ $ref: "#/definitions/n" }, { $ref: "#/definitions/n" }] },
          },
        },
      },
    ]);
    expect(v.validate("pair", { xy: [1, 2] })).toEqual({ ok: true });
    expect(v.validate("pair", { xy: [1, "2"] })).toEqual({
      ok: false,
      message: "arguments/xy/1 must be number",
    });
  });

  it("accepts any object for a tool without parameters, and rejects non-objects for every tool", () => {
    const v = createArgumentsValidator([{ name: "getCurrentTime", strict: false }]);
    expect(v.validate("getCurrentTime", { anything: [1] })).toEqual({ ok: true });
    expect(v.validate("getCurrentTime", [1])).toEqual({
      ok: false,
      message: "arguments must be a JSON object",
    });
    expect(v.validate("getCurrentTime", "{}")).toEqual({
      ok: false,
      message: "arguments must be a JSON object",
    });
  });

  it("ignores unknown formats and keywords (strict: false) instead of failing the tool", () => {
    const v = createArgumentsValidator([
      {
        name: "fetch",
        strict: true,
        parameters: { type: "object", properties: { url: { type: "string", format: "uri", "x-ui": 1 } } },
      },
    ]);
    expect(v.validate("fetch", { url: "not a uri" })).toEqual({ ok: true });
    expect(v.validate("fetch", { url: 3 })).toEqual({ ok: false, message: "arguments/url must be string" });
  });

  it("reports a schema it cannot compile and then accepts the arguments unchecked", () => {
    const v = createArgumentsValidator([
      {
        name: "broken",
        strict: true,
        parameters: { type: "object", properties: { a: { $ref: "#/nowhere" } } },
      },
    ]);
    expect(v.schemaError("broken")).toMatch(/can't resolve reference #\/nowhere/);
    expect(v.validate("broken", { a: 1 })).toEqual({ ok: true });
  });

  it("compiles each schema once per validator, lazily", () => {
    const schema = { type: "object", properties: { q: { type: "string" } } };
    let reads = 0;
    const counted = new Proxy(schema, {
      get(target, key, receiver) {
        if (key === "properties") reads += 1;
        return Reflect.get(target, key, receiver);
      },
    });
    const v = createArgumentsValidator([{ name: "search", strict: false, parameters: counted }]);
    expect(reads).toBe(0);
    for (let i = 0; i < 5; i += 1) v.validate("search", { q: "x" });
    const afterFirst = reads;
    v.validate("search", { q: 1 });
    expect(reads).toBe(afterFirst);
    expect(afterFirst).toBeGreaterThan(0);
  });
});

describe("createSchemaCache", () => {
  const schema = (n: number) => ({
    type: "object",
    properties: { [`p${n}`]: { type: "string" } },
    required: [`p${n}`],
  });

  it("compiles an identical schema once across validators (requests) and stays bounded", () => {
    const cache = createSchemaCache({ maxEntries: 2 });
    const tool = { name: "t", parameters: schema(1), strict: true };
    const a = createArgumentsValidator([tool], cache);
    const b = createArgumentsValidator([{ ...tool, parameters: structuredClone(schema(1)) }], cache);
    expect(a.validate("t", { p1: "x" })).toEqual({ ok: true });
    expect(b.validate("t", {})).toMatchObject({ ok: false, message: expect.stringContaining("p1") });
    expect(cache.size()).toBe(1);
    expect(cache.compile(schema(1))).toBe(cache.compile(structuredClone(schema(1))));
    cache.compile(schema(2));
    cache.compile(schema(3));
    expect(cache.size()).toBe(2);
  });
});
