import { describe, expect, it } from "vitest";
import { DEFAULT_TURN_SETTINGS, runTurn, wrapBackend } from "../../src/gateway.js";
import {
  type AssistantEvent,
  countTokens,
  createCountingIdGenerator,
  GatewayError,
} from "../../src/index.js";
import { createScriptedBackend, o200kEncoding, type Script } from "../../src/testing/index.js";
import { estimateTokensOfTexts } from "../../src/tokens/token-counter.js";

const PROMPT = Array.from({ length: 3000 }, (_, i) => `word${i % 50}`).join(" ");

/** A backend that never reports usage (some upstreams do not; none does for a turn cut short). */
const silentAbout = (script: Script) =>
  wrapBackend(createScriptedBackend(script), {
    async *stream(request, options, next) {
      for await (const batch of next(request, options)) {
        const kept = batch.filter((event) => event.type !== "usage");
        if (kept.length > 0) yield kept;
      }
    },
  });

const start = (script: Script, signal = new AbortController().signal, reports = true) =>
  runTurn(
    {
      backend: reports ? createScriptedBackend(script) : silentAbout(script),
      ids: createCountingIdGenerator(),
      tokens: o200kEncoding,
    },
    {
      request: {
        model: "m",
        items: [{ type: "message", role: "user", content: [{ type: "text", text: PROMPT }] }],
      },
      tools: { tools: [], choice: { type: "auto" }, parallel: true },
      settings: DEFAULT_TURN_SETTINGS,
      signal,
    },
  );

const drain = async (events: AsyncIterable<AssistantEvent>) => {
  const out: AssistantEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
};

describe("a turn's accounted usage", () => {
  it("is the backend's report when there is one", async () => {
    const handle = start(() => ({
      chunks: ["hi"],
      usage: { inputTokens: 7, outputTokens: 3, totalTokens: 10 },
    }));
    await drain(handle.events);
    expect(handle.telemetry().usage).toEqual({ inputTokens: 7, outputTokens: 3, totalTokens: 10 });
  });

  it("is estimated, and marked so, when the backend accepted the turn and reported none", async () => {
    const handle = start(() => ({ chunks: ["one ", "two ", "three"] }), undefined, false);
    const events = await drain(handle.events);
    // The client is not told an estimate: only reported usage goes out as events.
    expect(events.some((e) => e.type === "usage")).toBe(false);
    const usage = handle.telemetry().usage;
    expect(usage?.estimated).toBe(true);
    const prompt = countTokens(o200kEncoding, PROMPT);
    expect(usage?.inputTokens).toBeGreaterThan(prompt * 0.9);
    expect(usage?.outputTokens).toBe(countTokens(o200kEncoding, "one two three"));
  });

  it("counts the attempt under way when the client leaves mid-stream", async () => {
    const controller = new AbortController();
    const handle = start(
      () => ({ chunks: ["partial ", "answer"], hangAfterChunks: 2 }),
      controller.signal,
      false,
    );
    const iterator = handle.events[Symbol.asyncIterator]();
    for (let seen = ""; !seen.includes("answer"); ) {
      const next = await iterator.next();
      if (next.done) break;
      if (next.value.type === "text-delta") seen += next.value.delta;
    }
    // The surface reports the turn as the client goes, before the attempt has ended.
    const usage = handle.telemetry().usage;
    expect(usage?.estimated).toBe(true);
    expect(usage?.inputTokens).toBeGreaterThan(1000);
    expect(usage?.outputTokens).toBeGreaterThan(0);
    controller.abort();
    await iterator.return?.();
  });

  it("is nothing when the backend refused the turn before accepting it", async () => {
    const handle = start(() => ({ chunks: [], startError: new GatewayError("rate_limited", "no") }));
    await drain(handle.events).catch(() => undefined);
    expect(handle.telemetry().usage).toBeUndefined();
  });
});

describe("estimateTokensOfTexts", () => {
  it("is the exact count of short texts together, and close for long ones, at a bounded cost", () => {
    const texts = ["You are a helpful assistant.", "Hello there!", "What's the weather?"];
    expect(estimateTokensOfTexts(o200kEncoding, texts)).toBe(
      texts.reduce((n, t) => n + countTokens(o200kEncoding, t), 0),
    );
    const many = Array.from({ length: 20_000 }, (_, i) => `message ${i}: ${PROMPT.slice(0, 500)}`);
    const started = performance.now();
    const estimate = estimateTokensOfTexts(o200kEncoding, many);
    const took = performance.now() - started;
    const exact = many.slice(0, 200).reduce((n, t) => n + countTokens(o200kEncoding, t), 0) * 100;
    expect(Math.abs(estimate - exact) / exact).toBeLessThan(0.1);
    expect(took).toBeLessThan(200);
  });
});
