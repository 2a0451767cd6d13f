import { type BackendRequest, countTokens, type GatewayError, isGatewayError } from "@proxy/core";
import type { BackendEvent } from "@proxy/core/gateway";
import { o200kEncoding } from "@proxy/core/testing";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOpenAICompatibleBackend, type OpenAICompatibleBackend } from "../src/index.js";
import { type ScriptedUpstream, startScriptedUpstream, type UpstreamTurn } from "../src/testing/index.js";

const request = (text: string, extra: Partial<BackendRequest> = {}): BackendRequest => ({
  model: "qwen3:8b",
  instructions: "You are terse.",
  history: [
    { role: "developer", content: [{ type: "text", text: "Tool manifest goes here." }] },
    { role: "user", content: [{ type: "text", text: "Earlier question." }] },
    { role: "assistant", content: [{ type: "text", text: "Earlier answer." }] },
  ],
  input: [{ type: "text", text }],
  ...extra,
});

const collect = async (backend: OpenAICompatibleBackend, req: BackendRequest, signal?: AbortSignal) => {
  const events: BackendEvent[] = [];
  try {
    for await (const e of backend.stream(req, { signal: signal ?? new AbortController().signal }))
      events.push(e);
  } catch (error) {
    if (!isGatewayError(error)) throw error;
    return { events, thrown: error };
  }
  return { events, thrown: undefined as GatewayError | undefined };
};

const joined = (events: ReadonlyArray<BackendEvent>, type: "text-delta" | "reasoning-delta") =>
  events.flatMap((e) => (e.type === type ? [e.delta] : [])).join("");

let next: UpstreamTurn = { text: "" };
let upstream: ScriptedUpstream;
let backend: OpenAICompatibleBackend;
beforeAll(async () => {
  upstream = await startScriptedUpstream(() => next);
  backend = createOpenAICompatibleBackend({
    tokens: o200kEncoding,
    baseUrl: `${upstream.url}/`,
    route: "local-qwen",
    apiKey: "sk-upstream",
  });
});
afterAll(async () => {
  await backend.close();
  await upstream.close();
});

describe("openai-compatible backend at the wire", () => {
  it("sends the rendered prompt in prompt mode: roles kept, no tools, usage requested, bearer key", async () => {
    next = { text: "ok" };
    await collect(backend, request("What now?", { maxOutputTokens: 99 }));
    const sent = upstream.requests.at(-1)!;
    expect(sent.path).toBe("/v1/chat/completions");
    expect(sent.headers.authorization).toBe("Bearer sk-upstream");
    expect(sent.body).toEqual({
      model: "qwen3:8b",
      messages: [
        { role: "system", content: "You are terse." },
        { role: "system", content: "Tool manifest goes here." },
        { role: "user", content: "Earlier question." },
        { role: "assistant", content: "Earlier answer." },
        { role: "user", content: "What now?" },
      ],
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 99,
    });
    expect(sent.body).not.toHaveProperty("tools");
  });

  it.each([
    ["minimal", "low"],
    ["medium", "medium"],
    ["xhigh", "high"],
    ["none", undefined],
  ] as const)("folds reasoning effort %s onto the servers' low/medium/high (%s)", async (effort, sent) => {
    next = { text: "ok" };
    await collect(backend, request("think", { reasoningEffort: effort }));
    expect(upstream.requests.at(-1)!.body.reasoning_effort).toBe(sent);
  });

  it("sends images as image_url parts", async () => {
    next = { text: "a cat" };
    await collect(
      backend,
      request("", {
        input: [
          { type: "text", text: "what is it?" },
          { type: "image", url: "data:image/png;base64,AA", detail: "low" },
        ],
      }),
    );
    expect((upstream.requests.at(-1)!.body.messages as unknown[]).at(-1)).toEqual({
      role: "user",
      content: [
        { type: "text", text: "what is it?" },
        { type: "image_url", image_url: { url: "data:image/png;base64,AA", detail: "low" } },
      ],
    });
  });

  it("refuses a remote image URL before asking the upstream (it would fetch it)", async () => {
    const before = upstream.requests.length;
    const { thrown } = await collect(
      backend,
      request("", { input: [{ type: "image", url: "http://169.254.169.254/latest/meta-data" }] }),
    );
    expect(thrown).toMatchObject({ kind: "invalid_request", param: "image_url", code: "invalid_image_url" });
    expect(upstream.requests.length).toBe(before);
  });

  it("reports the upstream's usage as is, and an estimate marked as such only when there is none", async () => {
    next = { text: "Four.", usage: { inputTokens: 120, outputTokens: 3 } };
    const reported = (await collect(backend, request("2+2?"))).events.find((e) => e.type === "usage");
    expect(reported).toEqual({
      type: "usage",
      usage: { inputTokens: 120, outputTokens: 3, totalTokens: 123 },
    });
    next = { text: "Four, as you asked.", usage: null };
    const estimated = (await collect(backend, request("2+2?"))).events.find((e) => e.type === "usage");
    expect(estimated).toMatchObject({
      usage: { estimated: true, outputTokens: countTokens(o200kEncoding, "Four, as you asked.") },
    });
    if (estimated?.type === "usage") expect(estimated.usage.inputTokens).toBeGreaterThan(10);
  });

  it.each(["reasoning_content", "reasoning"] as const)(
    "streams the upstream's %s field as reasoning",
    async (field) => {
      next = { reasoning: "Let me add.", reasoningField: field, text: "Four." };
      const { events } = await collect(backend, request("2+2?"));
      expect(joined(events, "reasoning-delta")).toBe("Let me add.");
      expect(joined(events, "text-delta")).toBe("Four.");
    },
  );

  it("maps finish_reason length", async () => {
    next = { text: "cut", finishReason: "length" };
    const { events } = await collect(backend, request("long"));
    expect(events.at(-1)).toEqual({ type: "finish", finish: { reason: "length", raw: "length" } });
  });

  it("turns <think> blocks and reasoning however the SSE bytes are split (split anywhere)", async () => {
    const text =
      '<think>\nI should call f.\n</think>\n\nCalling: <tool_call>{"name":"f","arguments":"{}"}</tool_call> ü🚀';
    const chunks = [
      "<thi",
      "nk>\nI should",
      " call f.\n</th",
      "ink>\n\nCalling: <tool_call>",
      '{"name":"f","arguments":"{}"}</tool_call> ü🚀',
    ];
    expect(chunks.join("")).toBe(text);
    await fc.assert(
      fc.asyncProperty(fc.array(fc.nat({ max: 4000 }), { maxLength: 40 }), async (splitAt) => {
        next = { chunks, splitAt };
        const { events, thrown } = await collect(backend, request("go"));
        expect(thrown).toBeUndefined();
        expect(joined(events, "reasoning-delta")).toBe("\nI should call f.\n");
        expect(joined(events, "text-delta")).toBe(
          'Calling: <tool_call>{"name":"f","arguments":"{}"}</tool_call> ü🚀',
        );
        expect(events.at(-1)?.type).toBe("finish");
      }),
      { numRuns: 40 },
    );
  });

  it("keeps one connection alive across turns", async () => {
    const before = upstream.connections();
    for (let i = 0; i < 5; i++) {
      next = { text: `turn ${i}` };
      await collect(backend, request("again"));
    }
    expect(upstream.connections() - before).toBeLessThanOrEqual(1);
  });

  it("abort cancels the upstream request", async () => {
    next = { chunks: ["thinking…"], hang: true };
    const controller = new AbortController();
    const before = upstream.abandoned();
    const events: BackendEvent[] = [];
    for await (const e of backend.stream(request("hang"), { signal: controller.signal })) {
      events.push(e);
      if (e.type === "text-delta") controller.abort();
    }
    expect(events.some((e) => e.type === "finish")).toBe(false);
    await expect.poll(() => upstream.abandoned()).toBe(before + 1);
  });
});

describe("openai-compatible backend: upstream failures name the route and never the URL", () => {
  const failure = async (turn: UpstreamTurn) => {
    next = turn;
    const { events, thrown } = await collect(backend, request("fail"));
    const error = thrown ?? events.flatMap((e) => (e.type === "error" ? [e.error] : []))[0];
    expect(error, JSON.stringify(events)).toBeDefined();
    expect(error!.message).toContain("route 'local-qwen'");
    expect(error!.message).not.toContain("127.0.0.1");
    return { error: error!, started: events.some((e) => e.type === "stream-start"), events };
  };

  it.each([
    [401, "backend_auth", false],
    [403, "backend_auth", false],
    [404, "not_found", false],
    [408, "timeout", true],
    [500, "backend_error", true],
    [503, "backend_unavailable", true],
  ] as const)("HTTP %i → %s before the stream starts (retryable: %s)", async (status, kind, retryable) => {
    const { error, started } = await failure({
      status,
      errorMessage: `see http://10.0.0.7:8080/internal for ${status}`,
    });
    expect(error.kind).toBe(kind);
    expect(error.retryable).toBe(retryable);
    expect(started).toBe(false);
  });

  it("429 → rate_limited with the upstream's Retry-After", async () => {
    const { error } = await failure({ status: 429, retryAfter: "7" });
    expect(error).toMatchObject({ kind: "rate_limited", retryAfterSeconds: 7 });
  });

  it("a refusal keeps its meaning: an unknown model is model_not_found, a bad request invalid_request, in the upstream's words", async () => {
    const unknown = await failure({
      status: 400,
      errorMessage: 'model "qwen9" not found, try pulling it first',
    });
    expect(unknown.error).toMatchObject({ kind: "not_found", code: "model_not_found", param: "model" });
    expect(unknown.error.message).toContain('model "qwen9" not found, try pulling it first');
    const bad = await failure({ status: 422, errorMessage: "temperature must be at most 2" });
    expect(bad.error).toMatchObject({ kind: "invalid_request", code: "upstream_rejected", retryable: false });
    expect(bad.error.message).toMatch(/HTTP 422: temperature must be at most 2$/);
  });

  it("400 about the context → context_length_exceeded", async () => {
    const { error } = await failure({
      status: 400,
      errorMessage: "the request exceeds the available context size",
    });
    expect(error.kind).toBe("context_length_exceeded");
  });

  it("a full context keeps the upstream's window and token count (OpenAI, vLLM, llama.cpp wordings)", async () => {
    for (const [errorMessage, contextWindow, inputTokens] of [
      [
        "This model's maximum context length is 8192 tokens. However, your messages resulted in 9001 tokens. Please reduce the length of the messages.",
        8192,
        9001,
      ],
      [
        "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens (4000 in the messages, 1000 in the completion).",
        4096,
        5000,
      ],
      [
        "the request (7000 tokens) exceeds the available context size (6144 tokens), try increasing it",
        6144,
        7000,
      ],
    ] as const) {
      const { error } = await failure({ status: 400, errorMessage });
      expect(error).toMatchObject({ kind: "context_length_exceeded", contextWindow, inputTokens });
    }
  });

  it("a 200 that is not an event stream → a clear backend error", async () => {
    const { error } = await failure({ raw: { contentType: "text/html", body: "<html>proxy login</html>" } });
    expect(error).toMatchObject({ kind: "backend_error", code: "upstream_bad_response" });
  });

  it("a chunk that is not OpenAI-shaped → backend error after the stream started", async () => {
    const { error, started } = await failure({ chunks: ["ok"], rawEvents: ['{"choices":"not a list"}'] });
    expect(started).toBe(true);
    expect(error.code).toBe("upstream_bad_response");
  });

  it("a mid-stream error event ends the turn with an error, not a finish", async () => {
    const { error, started, events } = await failure({
      chunks: ["partial"],
      midStreamError: "CUDA out of memory",
    });
    expect(started).toBe(true);
    expect(error.message).toContain("CUDA out of memory");
    expect(events.some((e) => e.type === "finish")).toBe(false);
  });

  it("a dropped connection mid-stream → a retryable error, not a finish", async () => {
    const { error, events } = await failure({ chunks: ["partial"], disconnect: true });
    expect(error.retryable).toBe(true);
    expect(events.some((e) => e.type === "finish")).toBe(false);
  });

  it("a stalled stream ends with a timeout after the idle limit", async () => {
    const stalling = createOpenAICompatibleBackend({
      tokens: o200kEncoding,
      baseUrl: upstream.url,
      route: "local-qwen",
      idleTimeoutMs: 300,
    });
    next = { chunks: ["slow"], hang: true };
    const { events } = await collect(stalling, request("stall"));
    await stalling.close();
    expect(events.at(-1)).toMatchObject({ type: "error", error: { kind: "timeout" } });
  });

  it("an unreachable upstream → backend_unavailable, readiness false, then ready again once it is back", async () => {
    const server = await startScriptedUpstream(() => ({ text: "back" }));
    const port = server.port;
    await server.close();
    const down = createOpenAICompatibleBackend({
      tokens: o200kEncoding,
      baseUrl: `http://127.0.0.1:${port}/v1`,
      route: "local-qwen",
      reprobeAfterMs: 0,
    });
    const { thrown } = await collect(down, request("anyone?"));
    expect(thrown).toMatchObject({ kind: "backend_unavailable", code: "upstream_unreachable" });
    expect(thrown?.message).not.toContain(String(port));
    expect(down.readiness()).toMatchObject({ ready: false, detail: expect.stringContaining("ECONNREFUSED") });
    const again = await startScriptedUpstream(() => ({ text: "back" }), { port });
    await expect.poll(() => down.readiness().ready).toBe(true);
    expect(joined((await collect(down, request("anyone?"))).events, "text-delta")).toBe("back");
    await down.close();
    await again.close();
  });
});

describe("openai-compatible backend in native tool mode", () => {
  const weather = {
    name: "get_weather",
    description: "Current weather",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    strict: true,
  };

  it("offers a custom tool as a function of one string `input` with its grammar in the description", async () => {
    const native = createOpenAICompatibleBackend({
      tokens: o200kEncoding,
      baseUrl: upstream.url,
      route: "local-qwen",
      nativeTools: true,
    });
    next = {
      chunks: [],
      toolCalls: [{ id: "call_up_2", name: "apply_patch", argumentChunks: ['{"input":"*** Begin Patch"}'] }],
    };
    const applyPatch = {
      name: "apply_patch",
      description: "Edit files.",
      strict: false,
      custom: true,
      grammar: { syntax: "lark" as const, definition: "start: /.+/" },
    };
    const { events } = await collect(
      native,
      request("patch it", { tools: { tools: [applyPatch], choice: { type: "auto" }, parallel: true } }),
    );
    await native.close();
    expect(upstream.requests.at(-1)!.body.tools).toEqual([
      {
        type: "function",
        function: {
          name: "apply_patch",
          description:
            "Edit files.\n\nPut the raw input in `input`. Its input must match this lark grammar exactly:\nstart: /.+/",
          parameters: {
            type: "object",
            properties: {
              input: { type: "string", description: "The tool's raw input, exactly as its grammar asks." },
            },
            required: ["input"],
            additionalProperties: false,
          },
        },
      },
    ]);
    expect(events.find((e) => e.type === "tool-call-end")).toMatchObject({
      arguments: '{"input":"*** Begin Patch"}',
    });
  });

  it("sends tools, tool_choice and parallel_tool_calls as they are, and maps the streamed tool_calls", async () => {
    const native = createOpenAICompatibleBackend({
      tokens: o200kEncoding,
      baseUrl: upstream.url,
      route: "local-qwen",
      nativeTools: true,
    });
    expect(native.capabilities?.nativeTools).toBe(true);
    next = {
      chunks: ["Let me look."],
      toolCalls: [{ id: "call_up_1", name: "get_weather", argumentChunks: ['{"ci', 'ty":"Pa', 'ris"}'] }],
      splitAt: [40, 41, 300, 555],
    };
    const { events } = await collect(
      native,
      request("weather?", {
        tools: { tools: [weather], choice: { type: "tool", name: "get_weather" }, parallel: false },
      }),
    );
    await native.close();
    const sent = upstream.requests.at(-1)!.body;
    expect(sent.tools).toEqual([
      {
        type: "function",
        function: {
          name: "get_weather",
          description: "Current weather",
          parameters: weather.parameters,
          strict: true,
        },
      },
    ]);
    expect(sent.tool_choice).toEqual({ type: "function", function: { name: "get_weather" } });
    expect(sent.parallel_tool_calls).toBe(false);
    expect(events.filter((e) => e.type.startsWith("tool-call"))).toEqual([
      { type: "tool-call-start", callId: "call_up_1", name: "get_weather" },
      { type: "tool-call-delta", callId: "call_up_1", delta: '{"ci' },
      { type: "tool-call-delta", callId: "call_up_1", delta: 'ty":"Pa' },
      { type: "tool-call-delta", callId: "call_up_1", delta: 'ris"}' },
      { type: "tool-call-end", callId: "call_up_1", name: "get_weather", arguments: '{"city":"Paris"}' },
    ]);
    expect(events.at(-1)).toEqual({ type: "finish", finish: { reason: "tool_calls", raw: "tool_calls" } });
  });

  it("a prompt-mode backend declares no native tools and a prompt request carries no tools", async () => {
    expect(backend.capabilities?.nativeTools).toBe(false);
    next = { text: "ok" };
    await collect(backend, request("hi"));
    expect(upstream.requests.at(-1)!.body).not.toHaveProperty("tools");
  });

  it("a stream cut before the end yields no half-finished call", async () => {
    const native = createOpenAICompatibleBackend({
      tokens: o200kEncoding,
      baseUrl: upstream.url,
      route: "local-qwen",
      nativeTools: true,
    });
    next = {
      toolCalls: [{ id: "call_cut", name: "get_weather", argumentChunks: ['{"city":'] }],
      disconnect: true,
    };
    const { events } = await collect(
      native,
      request("weather?", { tools: { tools: [weather], choice: { type: "auto" }, parallel: true } }),
    );
    await native.close();
    expect(events.some((e) => e.type === "tool-call-end")).toBe(false);
    expect(events.at(-1)).toMatchObject({ type: "error", error: { kind: "backend_error" } });
  });
});
