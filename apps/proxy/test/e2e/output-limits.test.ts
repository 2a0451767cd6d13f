import { countTokens } from "@proxy/core";
import { o200kEncoding } from "@proxy/core/testing";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lastUserText, type RecordedRequest, startE2E } from "./e2e-gateway.js";

/** The scripted model answers slowly and at length, so a limit must stop it mid-answer. */
const WORDS = Array.from({ length: 40 }, (_, i) => `word${i} `);
const model = (request: RecordedRequest) => {
  const input = lastUserText(request);
  if (input.includes("observe"))
    // Still streaming long after the stop sequence, so only an interrupt can end it early.
    return {
      chunks: [
        "Thought: done.\nObserv",
        "ation: the user",
        ...Array.from({ length: 40 }, () => " says more"),
      ],
      delayMs: 80,
    };
  return { chunks: WORDS, delayMs: 60 };
};

describe("output limits enforced by the gateway (real codex app-server)", { timeout: 60_000 }, () => {
  let e2e: Awaited<ReturnType<typeof startE2E>>;
  let client: OpenAI;
  beforeAll(async () => {
    e2e = await startE2E(model);
    client = new OpenAI({ baseURL: `${e2e.url}/v1`, apiKey: "sk-none", maxRetries: 0 });
  });
  afterAll(() => e2e.close());

  const upstreamClosed = (marker: string) =>
    e2e.provider.waitFor((r) => r.disconnected && lastUserText(r).includes(marker));

  it("chat stop: the answer ends before the sequence, finish stop, and codex's turn is interrupted", async () => {
    const stream = await client.chat.completions.create({
      model: "m",
      messages: [{ role: "user", content: "please observe" }],
      stop: ["Observation:"],
      stream: true,
    });
    let text = "";
    const finishes: string[] = [];
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? "";
      if (chunk.choices[0]?.finish_reason) finishes.push(chunk.choices[0].finish_reason);
    }
    expect(text).toBe("Thought: done.\n");
    expect(finishes).toEqual(["stop"]);
    expect((await upstreamClosed("please observe")).disconnected).toBe(true);
  });

  it("chat max_tokens: finish length after exactly that many tokens; the model is not run to the end", async () => {
    const completion = await client.chat.completions.create({
      model: "m",
      messages: [{ role: "user", content: "count for chat" }],
      max_tokens: 7,
    });
    const text = completion.choices[0]?.message.content ?? "";
    expect(completion.choices[0]?.finish_reason).toBe("length");
    expect(countTokens(o200kEncoding, text)).toBe(7);
    expect(WORDS.join("").startsWith(text)).toBe(true);
    expect((await upstreamClosed("count for chat")).disconnected).toBe(true);
  });

  it("responses max_output_tokens: status incomplete with reason max_output_tokens", async () => {
    const response = await client.responses.create({
      model: "m",
      input: "count for responses",
      max_output_tokens: 5,
    });
    expect(response.status).toBe("incomplete");
    expect(response.incomplete_details).toEqual({ reason: "max_output_tokens" });
    expect(countTokens(o200kEncoding, response.output_text)).toBe(5);
    expect((await upstreamClosed("count for responses")).disconnected).toBe(true);
  });
});
