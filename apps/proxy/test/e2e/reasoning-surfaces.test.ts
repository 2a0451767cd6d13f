import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startE2E } from "./e2e-gateway.js";

const KEY = "sk-e2e-reasoning";
const THOUGHT = "The user greets me; a short answer will do.";

/** codex's reasoning summary (the scripted model's), then its answer. */
const model = () => ({ reasoning: THOUGHT, chunks: ["Hello ", "there."] });

describe("codex's reasoning summaries reach each surface in its own shape (real codex)", {
  timeout: 60_000,
}, () => {
  let e2e: Awaited<ReturnType<typeof startE2E>>;
  let openai: OpenAI;
  let anthropic: Anthropic;
  let ai: GoogleGenAI;
  beforeAll(async () => {
    e2e = await startE2E(model, { PROXY_API_KEYS: KEY });
    openai = new OpenAI({ baseURL: `${e2e.url}/v1`, apiKey: KEY, maxRetries: 0 });
    anthropic = new Anthropic({ baseURL: e2e.url, apiKey: KEY, maxRetries: 0 });
    ai = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: e2e.url } });
  }, 60_000);
  afterAll(() => e2e?.close());

  it("Responses: a reasoning item with its summary, streamed and not", async () => {
    const ask = { model: "e2e-model", input: "Hi", reasoning: { summary: "auto" as const } };
    const res = await openai.responses.create(ask);
    expect(res.output[0]).toMatchObject({
      type: "reasoning",
      summary: [{ type: "summary_text", text: THOUGHT }],
    });
    let streamed = "";
    for await (const e of await openai.responses.create({ ...ask, stream: true }))
      if (e.type === "response.reasoning_summary_text.delta") streamed += e.delta;
    expect(streamed).toBe(THOUGHT);
  });

  it("Messages: thinking blocks when the client enables thinking, none when it does not", async () => {
    const ask = {
      model: "claude-sonnet-4-5",
      max_tokens: 512,
      messages: [{ role: "user" as const, content: "Hi" }],
    };
    const thinking = { type: "enabled" as const, budget_tokens: 1024 };
    const on = await anthropic.messages.create({ ...ask, thinking });
    expect(on.content[0]).toMatchObject({ type: "thinking", thinking: THOUGHT });
    const streamed = await anthropic.messages.stream({ ...ask, thinking }).finalMessage();
    expect(streamed.content[0]).toMatchObject({ type: "thinking", thinking: THOUGHT });
    const off = await anthropic.messages.create(ask);
    expect(off.content).toEqual([{ type: "text", text: "Hello there." }]);
  });

  it("Gemini: thought parts with includeThoughts, none without", async () => {
    const on = await ai.models.generateContent({
      model: "e2e-model",
      contents: "Hi",
      config: { thinkingConfig: { includeThoughts: true } },
    });
    const parts = on.candidates?.[0]?.content?.parts ?? [];
    expect(parts[0]).toEqual({ text: THOUGHT, thought: true });
    expect(on.text).toBe("Hello there.");
    let thought = "";
    const stream = await ai.models.generateContentStream({
      model: "e2e-model",
      contents: "Hi",
      config: { thinkingConfig: { includeThoughts: true } },
    });
    for await (const chunk of stream)
      for (const p of chunk.candidates?.[0]?.content?.parts ?? []) if (p.thought) thought += p.text ?? "";
    expect(thought).toBe(THOUGHT);
    const off = await ai.models.generateContent({ model: "e2e-model", contents: "Hi" });
    expect((off.candidates?.[0]?.content?.parts ?? []).some((p) => p.thought)).toBe(false);
  });

  it("Chat: reasoning_content on the message and in the stream's deltas", async () => {
    const ask = { model: "e2e-model", messages: [{ role: "user" as const, content: "Hi" }] };
    const res = await openai.chat.completions.create(ask);
    const message = res.choices[0]?.message as { reasoning_content?: string } | undefined;
    expect(message?.reasoning_content).toBe(THOUGHT);
    let streamed = "";
    for await (const chunk of await openai.chat.completions.create({ ...ask, stream: true }))
      streamed +=
        (chunk.choices[0]?.delta as { reasoning_content?: string } | undefined)?.reasoning_content ?? "";
    expect(streamed).toBe(THOUGHT);
  });
});
