import Anthropic from "@anthropic-ai/sdk";
import { usageLimitReached } from "@proxy/adapter-codex-appserver/testing";
import { startScriptedUpstream } from "@proxy/adapter-openai-compatible/testing";
import OpenAI, { APIError } from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PHOTO } from "../support/image-server.js";
import { type RecordedRequest, type ScriptedResponse, startE2E } from "./e2e-gateway.js";

const inAnHour = () => Math.floor(Date.now() / 1000) + 3600;

/** What the codex route's model does now (set per test), and a gate holding slow answers. */
let codexMode: "answer" | "limit" | "partial-then-throttled" | "refuse-model" | "bad-request" = "answer";
let release: () => void = () => {};
let held = new Promise<void>((r) => {
  release = r;
});
const codexModel = (request: RecordedRequest): ScriptedResponse => {
  const model = String(request.body.model);
  if (model === "slow-model" || model === "tight-model") return { text: `late from ${model}`, gate: held };
  if (codexMode === "limit") return usageLimitReached({ resetsAt: inAnHour() });
  if (codexMode === "refuse-model")
    return { fail: { status: 400, body: { detail: "The 'e2e-model' model is not supported here." } } };
  if (codexMode === "bad-request")
    return {
      fail: {
        status: 400,
        body: { error: { message: "Unsupported value: 'x'.", code: "unsupported_value" } },
      },
    };
  if (codexMode === "partial-then-throttled")
    return {
      chunks: ["partial answer from codex "],
      fail: { event: "failed", code: "rate_limit_exceeded", message: "Rate limit reached" },
    };
  return { text: "answer from codex" };
};

describe("fallbacks before the first byte: a codex route falls over to an OpenAI-compatible route", {
  timeout: 90_000,
}, () => {
  let upstream: Awaited<ReturnType<typeof startScriptedUpstream>>;
  let e2e: Awaited<ReturnType<typeof startE2E>>;
  let client: OpenAI;
  beforeAll(async () => {
    upstream = await startScriptedUpstream(() => ({ chunks: ["answer ", "from local"] }));
    e2e = await startE2E(codexModel, {
      PROXY_MAX_QUEUE: "0",
      PROXY_MODELS: JSON.stringify([
        { id: "e2e-model", backend: "codex", fallbacks: ["local"], aliases: ["claude-sonnet-4-5"] },
        {
          id: "slow",
          backend: "codex",
          upstreamModel: "slow-model",
          fallbacks: ["local"],
          firstByteTimeoutMs: 500,
        },
        { id: "tight", backend: "codex", upstreamModel: "tight-model", maxInFlight: 1, fallbacks: ["local"] },
        { id: "local", backend: "openai-compatible", baseUrl: upstream.url, upstreamModel: "llama" },
      ]),
    });
    client = new OpenAI({ baseURL: `${e2e.url}/v1`, apiKey: "sk-e2e", maxRetries: 0 });
  }, 60_000);
  afterAll(async () => {
    release();
    await e2e?.close();
    await upstream?.close();
  });

  const ask = (model: string, content = "hi") =>
    client.chat.completions.create({ model, messages: [{ role: "user", content }] }).withResponse();

  it("a primary that answers answers: x-proxy-route names it and the fallback is not asked", async () => {
    codexMode = "answer";
    const before = upstream.requests.length;
    const { data, response } = await ask("e2e-model");
    expect(data.choices[0]?.message.content).toBe("answer from codex");
    expect(response.headers.get("x-proxy-route")).toBe("e2e-model");
    expect(upstream.requests.length).toBe(before);
  });

  it("a 5 MB photo is answered by the primary: a big input is no reason to fall back", async () => {
    codexMode = "answer";
    const before = upstream.requests.length;
    const photo = `data:image/png;base64,${PHOTO().toString("base64")}`;
    const { data, response } = await client.chat.completions
      .create({
        model: "e2e-model",
        messages: [
          {
            role: "user",
            content: [
              { type: "text", text: "What is in this photo?" },
              { type: "image_url", image_url: { url: photo } },
            ],
          },
        ],
      })
      .withResponse();
    // Before: codex's echo of the photo failed the turn as a `timeout`, a fallback reason: "answer from local".
    expect(data.choices[0]?.message.content).toBe("answer from codex");
    expect(response.headers.get("x-proxy-route")).toBe("e2e-model");
    expect(upstream.requests.length).toBe(before);
    expect(JSON.stringify(e2e.provider.requests.at(-1)?.body.input)).toContain(photo);
    expect(e2e.logs.some((l) => l.msg === "model route: falling back before the first byte")).toBe(false);
  });

  it("the plan's limit reached: the request runs on the fallback, streamed or not, on OpenAI and Anthropic clients", async () => {
    codexMode = "limit";
    const { data, response } = await ask("e2e-model");
    expect(data.choices[0]?.message.content).toBe("answer from local");
    expect(data.model).toBe("e2e-model");
    expect(response.headers.get("x-proxy-route")).toBe("local");
    expect(upstream.requests.at(-1)?.body.model).toBe("llama");

    const stream = await client.chat.completions
      .create({ model: "e2e-model", messages: [{ role: "user", content: "hi" }], stream: true })
      .withResponse();
    let text = "";
    for await (const chunk of stream.data) text += chunk.choices[0]?.delta.content ?? "";
    expect(text).toBe("answer from local");
    expect(stream.response.headers.get("x-proxy-route")).toBe("local");

    const anthropic = new Anthropic({ baseURL: e2e.url, apiKey: "sk-e2e", maxRetries: 0 });
    const messages = anthropic.messages.stream({
      model: "claude-sonnet-4-5",
      max_tokens: 100,
      messages: [{ role: "user", content: "hi" }],
    });
    expect(await messages.finalText()).toBe("answer from local");
    const log = e2e.logs.find((l) => l.msg === "model route: falling back before the first byte");
    expect(log).toMatchObject({ route: "e2e-model", fallback: "local", reason: "rate_limited" });
  });

  it("a client error is the answer: a model or request the provider refuses does not move to the fallback", async () => {
    for (const [mode, status, code, message] of [
      ["refuse-model", 404, "model_not_found", "The 'e2e-model' model is not supported here."],
      ["bad-request", 400, "unsupported_value", "Unsupported value: 'x'."],
    ] as const) {
      codexMode = mode;
      const before = upstream.requests.length;
      const error = await ask("e2e-model").then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(APIError);
      expect(error).toMatchObject({ status, code, message: `${status} ${message}` });
      expect((error as APIError).headers?.get("x-proxy-route")).toBe("e2e-model");
      expect(upstream.requests.length).toBe(before);
    }
  });

  it("after the first byte there is no retry: the client gets the partial answer and the error", async () => {
    codexMode = "partial-then-throttled";
    const before = upstream.requests.length;
    const stream = await client.chat.completions
      .create({ model: "e2e-model", messages: [{ role: "user", content: "hi" }], stream: true })
      .withResponse();
    expect(stream.response.status).toBe(200);
    expect(stream.response.headers.get("x-proxy-route")).toBe("e2e-model");
    let text = "";
    const failure = await (async () => {
      for await (const chunk of stream.data) text += chunk.choices[0]?.delta.content ?? "";
    })().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(text).toBe("partial answer from codex ");
    expect(failure).toBeInstanceOf(APIError);
    // A failure of a kind that, before the first byte, would have moved the request on.
    expect((failure as APIError).error).toMatchObject({ type: "rate_limit_error" });
    expect(upstream.requests.length).toBe(before);
  });

  it("a fallback that cannot serve the request is skipped with a reason in the log (native tools on a prompt-only route)", async () => {
    codexMode = "limit";
    const before = upstream.requests.length;
    const error = await client.chat.completions
      .create(
        {
          model: "e2e-model",
          messages: [{ role: "user", content: "weather?" }],
          tools: [{ type: "function", function: { name: "get_weather", parameters: { type: "object" } } }],
        },
        { headers: { "x-proxy-tool-mode": "native" } },
      )
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).status).toBe(429);
    expect((error as APIError).headers?.get("x-proxy-route")).toBe("e2e-model");
    // The codex route's plan, as its 429 taught the gateway: in the headers, per route in /readyz and /metrics.
    expect((error as APIError).headers?.get("x-codex-primary-used-percent")).toBe("100");
    const ready = (await (await fetch(`${e2e.url}/readyz`)).json()) as {
      routes: Array<{ route: string; planLimits?: { primary?: { usedPercent: number } } }>;
    };
    expect(ready.routes.find((r) => r.route === "e2e-model")?.planLimits?.primary?.usedPercent).toBe(100);
    expect(ready.routes.find((r) => r.route === "local")?.planLimits).toBeUndefined();
    expect(await (await fetch(`${e2e.url}/metrics`)).text()).toContain(
      'proxy_codex_plan_used_percent{route="e2e-model",window="primary"} 100',
    );
    expect(upstream.requests.length).toBe(before);
    expect(e2e.logs.find((l) => l.msg === "model route: fallback skipped")).toMatchObject({
      route: "e2e-model",
      fallback: "local",
      reason: expect.stringContaining("native tools"),
    });
  });

  it("a primary that does not start answering within firstByteTimeoutMs gives way", async () => {
    const started = Date.now();
    const { data, response } = await ask("slow");
    expect(data.choices[0]?.message.content).toBe("answer from local");
    expect(response.headers.get("x-proxy-route")).toBe("local");
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(e2e.logs.find((l) => l.route === "slow" && l.reason === "timeout")).toBeDefined();
  });

  it("a primary at its maxInFlight with no queue room gives way; the running turn is unaffected", async () => {
    const first = ask("tight", "first");
    await e2e.provider.waitFor((r) => r.body.model === "tight-model");
    const { data, response } = await ask("tight", "second");
    expect(data.choices[0]?.message.content).toBe("answer from local");
    expect(response.headers.get("x-proxy-route")).toBe("local");
    release();
    const done = await first;
    expect(done.data.choices[0]?.message.content).toBe("late from tight-model");
    expect(done.response.headers.get("x-proxy-route")).toBe("tight");
    held = Promise.resolve();
  });
});
