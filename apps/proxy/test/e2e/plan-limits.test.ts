import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import { planUsageHeaders, usageLimitReached } from "@proxy/adapter-codex-appserver/testing";
import OpenAI, { APIError } from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ScriptedResponse, startE2E } from "./e2e-gateway.js";

const KEY = "sk-plan-limits";
const SECONDS_TO_RESET = 7980; // 2 h 13 min

/** The ChatGPT backend as codex sees it: usage headers on each answer, then the plan's limit. */
const plan = { limitReached: false, resetsAt: 0, withHeaders: true };
const model = (): ScriptedResponse => {
  if (plan.limitReached) return usageLimitReached({ resetsAt: plan.resetsAt });
  if (!plan.withHeaders) return { text: "no usage headers this time" };
  return {
    text: "Hello within the plan.",
    headers: planUsageHeaders({
      primary: { usedPercent: 42.6, windowMinutes: 300, resetAt: plan.resetsAt },
      secondary: { usedPercent: 9, windowMinutes: 10080, resetAt: plan.resetsAt + 86_400 },
    }),
  };
};

const errorOf = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error("expected the request to fail");
    },
    (e: unknown) => e,
  );

/** `Retry-After` from the reset time, a few seconds of test run lost. */
const expectRetryAfter = (value: string | null | undefined) => {
  const seconds = Number(value);
  expect(seconds).toBeGreaterThan(SECONDS_TO_RESET - 60);
  expect(seconds).toBeLessThanOrEqual(SECONDS_TO_RESET);
};
const MESSAGE = "usage limit reached; resets in 2 h 13 min";

describe("codex plan limits, visible: headers, /readyz, gauges, and a real 429 on every surface", {
  timeout: 90_000,
}, () => {
  let e2e: Awaited<ReturnType<typeof startE2E>>;
  let openai: OpenAI;
  let anthropic: Anthropic;
  let gemini: GoogleGenAI;
  beforeAll(async () => {
    plan.resetsAt = Math.floor(Date.now() / 1000) + SECONDS_TO_RESET;
    e2e = await startE2E(model, { PROXY_API_KEYS: KEY });
    openai = new OpenAI({ baseURL: `${e2e.url}/v1`, apiKey: KEY, maxRetries: 0 });
    anthropic = new Anthropic({ baseURL: e2e.url, apiKey: KEY, maxRetries: 0 });
    gemini = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: e2e.url } });
  }, 60_000);
  afterAll(() => e2e?.close());

  it("before any turn nothing is known: no x-codex-* headers, but x-proxy-route names the codex route", async () => {
    plan.withHeaders = false;
    const { response } = await openai.chat.completions
      .create({ model: "e2e-model", messages: [{ role: "user", content: "hi" }] })
      .withResponse();
    expect(response.headers.get("x-proxy-route")).toBe("codex");
    expect(response.headers.get("x-codex-primary-used-percent")).toBeNull();
    const ready = (await (await fetch(`${e2e.url}/readyz`)).json()) as Record<string, unknown>;
    expect(ready.planLimits).toBeUndefined();
  });

  it("the plan's usage reaches the client's headers, /readyz and /metrics, and survives an answer without usage headers", async () => {
    plan.withHeaders = true;
    await openai.chat.completions.create({ model: "e2e-model", messages: [{ role: "user", content: "hi" }] });
    // The next answer carries what the previous turn learned (codex reports it near each turn's end).
    plan.withHeaders = false;
    const { data, response } = await openai.chat.completions
      .create({ model: "e2e-model", messages: [{ role: "user", content: "again" }] })
      .withResponse();
    expect(data.choices[0]?.message.content).toBe("no usage headers this time");
    const h = response.headers;
    expect(h.get("x-proxy-route")).toBe("codex");
    expect(h.get("x-codex-primary-used-percent")).toBe("43");
    expect(h.get("x-codex-primary-window-minutes")).toBe("300");
    expect(h.get("x-codex-primary-reset-at")).toBe(String(plan.resetsAt));
    expect(h.get("x-codex-secondary-used-percent")).toBe("9");
    expect(h.get("x-codex-secondary-window-minutes")).toBe("10080");
    expect(h.get("x-codex-secondary-reset-at")).toBe(String(plan.resetsAt + 86_400));

    // A stream's headers too.
    const streamed = await openai.chat.completions
      .create({ model: "e2e-model", messages: [{ role: "user", content: "stream" }], stream: true })
      .withResponse();
    for await (const _ of streamed.data) {
      // drain
    }
    expect(streamed.response.headers.get("x-codex-primary-used-percent")).toBe("43");

    const ready = (await (await fetch(`${e2e.url}/readyz`)).json()) as Record<string, unknown>;
    expect(ready.planLimits).toEqual({
      primary: { usedPercent: 43, windowMinutes: 300, resetsAt: plan.resetsAt },
      secondary: { usedPercent: 9, windowMinutes: 10080, resetsAt: plan.resetsAt + 86_400 },
    });
    const metrics = await (await fetch(`${e2e.url}/metrics`)).text();
    expect(metrics).toContain('proxy_codex_plan_used_percent{window="primary"} 43');
    expect(metrics).toContain('proxy_codex_plan_used_percent{window="secondary"} 9');
    expect(metrics).toContain('proxy_codex_plan_window_minutes{window="primary"} 300');
    expect(metrics).toContain(`proxy_codex_plan_resets_at_seconds{window="primary"} ${plan.resetsAt}`);
  });

  describe("the limit reached", () => {
    beforeAll(() => {
      plan.limitReached = true;
    });

    it.each([false, true])(
      "Chat Completions (stream: %s): 429 rate_limit_error with Retry-After and the time to reset",
      async (stream) => {
        const error = await errorOf(
          openai.chat.completions.create({
            model: "e2e-model",
            messages: [{ role: "user", content: "hi" }],
            stream,
          }),
        );
        expect(error).toBeInstanceOf(APIError);
        const e = error as APIError;
        expect(e.status).toBe(429);
        expect(e.error).toMatchObject({ type: "rate_limit_error", message: MESSAGE });
        expectRetryAfter(e.headers?.get("retry-after"));
        expect(e.headers?.get("x-proxy-route")).toBe("codex");
        expect(e.headers?.get("x-codex-primary-used-percent")).toBe("100");
      },
    );

    it.each([false, true])("Responses (stream: %s): 429 with Retry-After", async (stream) => {
      const error = await errorOf(openai.responses.create({ model: "e2e-model", input: "hi", stream }));
      expect(error).toBeInstanceOf(APIError);
      const e = error as APIError;
      expect(e.status).toBe(429);
      expect(e.error).toMatchObject({ type: "rate_limit_error", message: MESSAGE });
      expectRetryAfter(e.headers?.get("retry-after"));
    });

    it.each([false, true])(
      "Anthropic Messages (stream: %s): 429 rate_limit_error with Retry-After",
      async (stream) => {
        const error = await errorOf(
          anthropic.messages.create({
            model: "claude-sonnet-4-5",
            max_tokens: 100,
            messages: [{ role: "user", content: "hi" }],
            stream,
          }),
        );
        expect(error).toBeInstanceOf(Anthropic.APIError);
        const e = error as InstanceType<typeof Anthropic.APIError>;
        expect(e.status).toBe(429);
        expect(e.error).toMatchObject({
          type: "error",
          error: { type: "rate_limit_error", message: MESSAGE },
        });
        expectRetryAfter(e.headers?.get("retry-after"));
      },
    );

    it.each([false, true])("Gemini (stream: %s): 429 RESOURCE_EXHAUSTED with Retry-After", async (stream) => {
      const request = { model: "e2e-model", contents: "hi" };
      const error = await errorOf(
        stream
          ? gemini.models.generateContentStream(request).then(async (s) => {
              for await (const _ of s) {
                // drain
              }
            })
          : gemini.models.generateContent(request),
      );
      expect((error as { status?: number }).status).toBe(429);
      expect(String((error as Error).message)).toContain(MESSAGE);
      // The SDK's error keeps no headers: the same request on the wire shows them.
      const res = await fetch(
        `${e2e.url}/v1beta/models/e2e-model:${stream ? "streamGenerateContent?alt=sse" : "generateContent"}`,
        {
          method: "POST",
          headers: { "content-type": "application/json", "x-goog-api-key": KEY },
          body: JSON.stringify({ contents: [{ role: "user", parts: [{ text: "hi" }] }] }),
        },
      );
      expect(res.status).toBe(429);
      expect(res.headers.get("content-type")).toContain("application/json");
      expectRetryAfter(res.headers.get("retry-after"));
      expect(((await res.json()) as { error: { status: string } }).error.status).toBe("RESOURCE_EXHAUSTED");
    });

    it("the plan shows 100 % in /readyz and /metrics", async () => {
      const ready = (await (await fetch(`${e2e.url}/readyz`)).json()) as {
        planLimits?: { primary?: { usedPercent: number } };
      };
      expect(ready.planLimits?.primary?.usedPercent).toBe(100);
      expect(await (await fetch(`${e2e.url}/metrics`)).text()).toContain(
        'proxy_codex_plan_used_percent{window="primary"} 100',
      );
    });
  });
});
