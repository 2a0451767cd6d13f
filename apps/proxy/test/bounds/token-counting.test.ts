import { createScriptedBackend } from "@proxy/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gatewayOver, type ReliabilityGateway } from "../reliability/support.js";
import { calmestStall, postJson, randomRun } from "./support.js";

// Before the fix one 100 KB run cost 5.4 s of CPU in one piece; the bound leaves room for a loaded machine.
const BOUND_MS = 250;

describe("token counting cannot stall the gateway (real gateway, in-process loop monitor)", {
  timeout: 120_000,
}, () => {
  let g: ReliabilityGateway;
  // A fresh run for every attempt: the tokenizer caches the pieces it has seen.
  const runs = () => Array.from({ length: 3 }, () => randomRun(100_000));
  beforeAll(async () => {
    // The answer is one 64K-character delta without a space: the output limit counts it.
    g = await gatewayOver(createScriptedBackend(() => ({ chunks: [randomRun(64_000)] })));
  });
  afterAll(() => g?.close());

  it("Messages count_tokens on a 100 KB run of letters: counted, other requests keep running", async () => {
    const bodies = runs().map((run) =>
      JSON.stringify({ model: "m", messages: [{ role: "user", content: run }] }),
    );
    const { worst, result } = await calmestStall(async (attempt) => {
      const res = await postJson(`${g.url}/v1/messages/count_tokens`, bodies[attempt] as string);
      return { status: res.status, json: (await res.json()) as { input_tokens: number } };
    }, BOUND_MS);
    expect(result.status).toBe(200);
    // Random lower-case letters are about two characters a token in o200k.
    expect(result.json.input_tokens).toBeGreaterThan(30_000);
    expect(result.json.input_tokens).toBeLessThan(80_000);
    expect(worst).toBeLessThan(BOUND_MS);
  });

  it("Gemini countTokens on the same run", async () => {
    const bodies = runs().map((run) =>
      JSON.stringify({ contents: [{ role: "user", parts: [{ text: run }] }] }),
    );
    const { worst, result } = await calmestStall(async (attempt) => {
      const res = await postJson(`${g.url}/v1beta/models/m:countTokens`, bodies[attempt] as string);
      return { status: res.status, json: (await res.json()) as { totalTokens: number } };
    }, BOUND_MS);
    expect(result.status).toBe(200);
    expect(result.json.totalTokens).toBeGreaterThan(30_000);
    expect(worst).toBeLessThan(BOUND_MS);
  });

  it("an output token limit over a 64K-character delta without a space", async () => {
    const body = JSON.stringify({
      model: "m",
      max_tokens: 100_000,
      messages: [{ role: "user", content: "hi" }],
    });
    const { worst, result } = await calmestStall(async () => {
      const res = await postJson(`${g.url}/v1/chat/completions`, body);
      return {
        status: res.status,
        json: (await res.json()) as { choices: Array<{ message: { content: string } }> },
      };
    }, BOUND_MS);
    expect(result.status).toBe(200);
    expect(result.json.choices[0]?.message.content).toHaveLength(64_000);
    expect(worst).toBeLessThan(BOUND_MS);
  });
});
