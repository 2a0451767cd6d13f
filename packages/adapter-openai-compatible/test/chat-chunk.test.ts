import * as Result from "effect/Result";
import * as Schema from "effect/Schema";
import * as SchemaParser from "effect/SchemaParser";
import { describe, expect, it } from "vitest";
import { ChatChunk, decodeChatChunk } from "../src/chat-chunk.js";

const bySchema = SchemaParser.decodeUnknownResult(Schema.fromJsonString(ChatChunk));

/** A chunk with every field the schema knows, and some it does not. */
const FULL = {
  id: "c1",
  object: "chat.completion.chunk",
  choices: [
    {
      index: 0,
      delta: {
        role: "assistant",
        content: "hi",
        reasoning_content: "r",
        reasoning: "r",
        tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "f", arguments: "{}" } }],
      },
      finish_reason: "stop",
      logprobs: null,
    },
  ],
  usage: {
    prompt_tokens: 3,
    completion_tokens: 4,
    total_tokens: 7,
    prompt_tokens_details: { cached_tokens: 1 },
    completion_tokens_details: { reasoning_tokens: 2 },
  },
  error: { message: "m", type: "t", code: 5 },
};

const VARIANTS: ReadonlyArray<unknown> = [undefined, null, "s", 1, true, {}, [], [{}], [null], [1]];

/** Every path to a value inside `root` (arrays by index). */
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
  const last = path[path.length - 1]!;
  if (value === undefined && !Array.isArray(cur)) delete cur[last];
  else cur[last] = value;
  return copy;
};

describe("decodeChatChunk", () => {
  it("accepts and refuses exactly what the ChatChunk schema does, every field in every wrong shape", () => {
    const samples = [
      "",
      "not json",
      "[]",
      '"text"',
      "{}",
      " {} ",
      ...paths(FULL).flatMap((path) =>
        VARIANTS.map((v) => JSON.stringify(replaced(FULL, path, v)) ?? "null"),
      ),
    ];
    let accepted = 0;
    for (const sample of samples) {
      const expected = bySchema(sample);
      const actual = decodeChatChunk(sample);
      expect({ sample, accepted: actual !== undefined }).toEqual({
        sample,
        accepted: Result.isSuccess(expected),
      });
      if (actual !== undefined && Result.isSuccess(expected)) {
        accepted++;
        // What the readers see is what the schema would have given them.
        expect(SchemaParser.decodeUnknownSync(ChatChunk)(actual)).toEqual(expected.success);
      }
    }
    expect(accepted).toBeGreaterThan(50);
    expect(samples.length - accepted).toBeGreaterThan(100);
  });
});
