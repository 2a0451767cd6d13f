import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeChatChunk } from "../src/chat-chunk.js";
import { createContentTemplate } from "../src/content-template.js";

/** The text delta of a chunk when it is its only effect (what the full parse path would emit). */
const onlyText = (payload: string): string | undefined => {
  const chunk = decodeChatChunk(payload);
  const choice = chunk?.choices?.[0];
  const delta = choice?.delta;
  if (!chunk || chunk.error !== undefined || chunk.usage || chunk.choices?.length !== 1) return undefined;
  if (!delta || choice.finish_reason || delta.reasoning_content || delta.reasoning || delta.tool_calls)
    return undefined;
  return delta.content ?? undefined;
};

const vllm = (content: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    id: "chatcmpl-1",
    object: "chat.completion.chunk",
    created: 1_700_000_000,
    model: "m",
    choices: [{ index: 0, delta: { content }, logprobs: null, finish_reason: null }],
    ...extra,
  });

/** llama.cpp puts choices first and the fields after them. */
const llamaCpp = (content: string) =>
  `{"choices":[{"finish_reason":null,"index":0,"delta":{"content":${JSON.stringify(content)}}}],"created":1700000000,"id":"chatcmpl-2","model":"m","system_fingerprint":"b1","object":"chat.completion.chunk"}`;

const learned = (first: string) => {
  const template = createContentTemplate();
  template.learn(first, decodeChatChunk(first)!);
  return template;
};

describe("the text-chunk template", () => {
  it("slices the text out of chunks shaped like one already parsed, for each server's layout", () => {
    for (const shape of [vllm, llamaCpp]) {
      const template = learned(shape("Hello"));
      expect(template.match(shape(" world"))).toBe(" world");
      expect(template.match(shape(""))).toBe("");
      expect(template.match(shape("é 😀 <think>"))).toBe("é 😀 <think>");
    }
  });

  it("leaves every other chunk to the full parse: escapes, other fields, another layout", () => {
    const template = learned(vllm("Hello"));
    for (const other of [
      vllm('say "hi"'),
      vllm("a\\b"),
      vllm("line\nbreak"),
      // A raw control character: JSON.parse refuses it, so must the template.
      vllm("Hello").replace("Hello", "line\nbreak"),
      vllm("x", { usage: { prompt_tokens: 1, completion_tokens: 1 } }),
      JSON.stringify({
        ...JSON.parse(vllm("x")),
        choices: [{ index: 0, delta: { content: "x" }, finish_reason: "stop" }],
      }),
      llamaCpp("x"),
      "[DONE]",
      "",
    ])
      expect(template.match(other)).toBeUndefined();
  });

  it("learns nothing from chunks that carry more than text, nor where the text is not found as written", () => {
    for (const first of [
      vllm("x", { usage: { prompt_tokens: 1, completion_tokens: 1 } }),
      JSON.stringify({ choices: [{ index: 0, delta: { content: "x", reasoning_content: "r" } }] }),
      JSON.stringify({ choices: [{ index: 0, delta: { content: "x" }, finish_reason: "length" }] }),
      // The text written with an escape JSON.stringify would not use: not found as written…
      '{"choices":[{"index":0,"delta":{"content":"\\u0078"}}],"model":"x"}',
      // …or found in another object's field, which is not the delta's text.
      '{"choices":[{"index":0,"delta":{"content":"\\u0078"}}],"other":{"content":"x"}}',
      // The same text twice: which one is the delta's is not known from the bytes alone.
      '{"choices":[{"index":0,"delta":{"content":"x"}}],"other":{"content":"x"}}',
    ]) {
      const template = learned(first);
      expect(template.match(first)).toBeUndefined();
      expect(template.match(first.replace('{"content":"x"}', '{"content":"z"}'))).toBeUndefined();
    }
  });

  it("gives up on a stream whose chunks never repeat (a per-chunk stamp), so it costs one parse per try at most", () => {
    const template = createContentTemplate();
    const stamped = (i: number) => vllm(`w${i}`, { obfuscation: `pad${i}` });
    for (let i = 0; i < 10; i++) {
      const p = stamped(i);
      expect(template.match(p)).toBeUndefined();
      template.learn(p, decodeChatChunk(p)!);
    }
    // It kept the third shape it learned and learned none after it.
    expect(template.match(vllm("later", { obfuscation: "pad2" }))).toBe("later");
    expect(template.match(vllm("later", { obfuscation: "pad9" }))).toBeUndefined();
  });

  it("never differs from the full parse: any text, any extra fields, any later payload", () => {
    const text = fc.string({ unit: "binary", maxLength: 12 });
    const extra = fc.dictionary(
      fc.constantFrom("id", "created", "model", "usage", "error", "choices", "x", "content"),
      fc.oneof(fc.string({ maxLength: 4 }), fc.integer(), fc.constant(null)),
      { maxKeys: 2 },
    );
    fc.assert(
      fc.property(text, extra, text, extra, (t1, e1, t2, e2) => {
        const first = vllm(t1, e1);
        const chunk = decodeChatChunk(first);
        const template = createContentTemplate();
        if (chunk) template.learn(first, chunk);
        for (const later of [vllm(t2, e1), vllm(t2, e2), vllm(t2), first]) {
          const fast = template.match(later);
          if (fast !== undefined) expect(fast).toBe(onlyText(later));
        }
      }),
      { numRuns: 3000 },
    );
  });
});
