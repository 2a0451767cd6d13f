import * as Result from "effect/Result";
import * as SchemaParser from "effect/SchemaParser";
import { describe, expect, it } from "vitest";
import { plainChatRequest } from "../src/request/plain-request.js";
import { ChatCompletionRequest } from "../src/request/request-schema.js";

const bySchema = SchemaParser.decodeUnknownResult(ChatCompletionRequest);

/** A request with every field the hand check takes, and one the schema does not know. */
const FULL = {
  model: "gpt-4o",
  messages: [
    { role: "system", content: "Be brief." },
    { role: "developer", content: "Use tools." },
    { role: "user", content: "Hi", name: "ann" },
    { role: "assistant", content: "Hello", tool_calls: null },
  ],
  stream: true,
  stream_options: { include_usage: true },
  max_tokens: 10,
  max_completion_tokens: 20,
  temperature: 0.5,
  top_p: 1,
  seed: 7,
  user: "u",
  frequency_penalty: 0,
  presence_penalty: 0,
  store: false,
  logprobs: false,
  top_logprobs: 2,
  service_tier: "auto",
  tools: [{ type: "function", function: { name: "f" } }],
  tool_choice: "auto",
  parallel_tool_calls: true,
  unknown_field: { any: 1 },
};

const VARIANTS: ReadonlyArray<unknown> = [
  undefined,
  null,
  "",
  "s",
  "x".repeat(300),
  0,
  -1,
  1.5,
  3,
  Number.MAX_SAFE_INTEGER + 2,
  true,
  {},
  [],
  [{}],
  [null],
  { role: "user", content: [{ type: "text", text: "t" }] },
  { role: "tool", content: "r", tool_call_id: "c" },
  { role: "assistant", content: null, tool_calls: [{ id: "c", function: { name: "f", arguments: "{}" } }] },
  { role: "user" },
  { include_usage: "yes" },
];

const paths = (
  root: unknown,
  at: ReadonlyArray<string | number> = [],
): Array<ReadonlyArray<string | number>> => {
  if (typeof root !== "object" || root === null) return [at];
  const keys = Array.isArray(root) ? root.map((_, i) => i) : Object.keys(root);
  return [at, ...keys.flatMap((k) => paths((root as Record<string | number, unknown>)[k], [...at, k]))];
};

const replaced = (root: unknown, path: ReadonlyArray<string | number>, value: unknown): unknown => {
  if (path.length === 0) return value;
  const copy = structuredClone(root) as Record<string | number, unknown>;
  let cur = copy;
  for (const k of path.slice(0, -1)) cur = cur[k] as Record<string | number, unknown>;
  const last = path[path.length - 1] as string | number;
  if (value === undefined && !Array.isArray(cur)) delete cur[last];
  else cur[last] = value;
  return copy;
};

/** `value` cut to the fields `shape` has (the schema's decode drops the ones it does not know). */
const shaped = (value: unknown, shape: unknown): unknown => {
  if (typeof shape !== "object" || shape === null || typeof value !== "object" || value === null)
    return value;
  if (Array.isArray(shape)) return Array.isArray(value) ? shape.map((s, i) => shaped(value[i], s)) : value;
  const v = value as Record<string, unknown>;
  return Object.fromEntries(
    Object.keys(shape).map((k) => [k, shaped(v[k], (shape as Record<string, unknown>)[k])]),
  );
};

describe("plainChatRequest", () => {
  it("takes the common request as it is", () => {
    expect(plainChatRequest({ model: "m", messages: [{ role: "user", content: "hi" }] })).toBeDefined();
    expect(plainChatRequest(FULL)).toBeDefined();
  });

  it("leaves the rest to the schema", () => {
    for (const body of [
      { model: "m", messages: [{ role: "user", content: "hi" }], n: 1 },
      { model: "m", messages: [{ role: "user", content: "hi" }], response_format: { type: "text" } },
      { model: "m", messages: [{ role: "user", content: "hi" }], stop: "x" },
      { model: "m", messages: [] },
      { model: "", messages: [{ role: "user", content: "hi" }] },
    ])
      expect(plainChatRequest(body)).toBeUndefined();
  });

  it("never takes a body the schema refuses, and what it takes reads as the schema's decode does", () => {
    let taken = 0;
    let checked = 0;
    for (const path of paths(FULL))
      for (const value of VARIANTS) {
        const body = replaced(FULL, path, value);
        checked++;
        const plain = plainChatRequest(body);
        if (plain === undefined) continue;
        taken++;
        const decoded = bySchema(body);
        expect(Result.isSuccess(decoded), JSON.stringify(body)).toBe(true);
        if (Result.isSuccess(decoded)) expect(shaped(plain, decoded.success)).toEqual(decoded.success);
      }
    expect(checked).toBeGreaterThan(500);
    expect(taken).toBeGreaterThan(50);
  });
});
