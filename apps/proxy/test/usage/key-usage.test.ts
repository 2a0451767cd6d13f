import { createHash } from "node:crypto";
import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import type { Script } from "@proxy/core/testing";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningGateway } from "../../src/gateway.js";
import { startUpstreamGateway } from "../e2e/upstream-gateway.js";
import { ADMIN, adminGet, bothStores, gatewayWith } from "./support.js";

const ALICE = "sk-alice-0123456789";
const BOB = "sk-bob-0123456789";
const PLAIN = "sk-plain-0123456789";
const PLAIN_DIGEST = createHash("sha256").update(PLAIN).digest("hex");

/** Every turn reports different usage, so sums are only right if every turn was counted once. */
const script: Script = (request, i) => ({
  chunks: JSON.stringify(request.input).includes("weather")
    ? `<tool_call>${JSON.stringify({ name: "get_weather", arguments: JSON.stringify({ city: "Oslo" }) })}</tool_call>`
    : ["Hello ", "there"],
  usage: {
    inputTokens: 100 + i * 7,
    cachedInputTokens: 20 + i,
    outputTokens: 5 + i * 3,
    // Anthropic's usage has no reasoning count: bob's turns report none, so the client sees all.
    reasoningOutputTokens: JSON.stringify(request.input).includes("bob") ? 0 : i,
    totalTokens: 105 + i * 10,
  },
});

const KEYS = [{ name: "alice", keyEnv: "ALICE_KEY" }, { name: "bob", key: BOB }, PLAIN];
const { stores, stop } = bothStores("usage");
afterAll(stop);

interface Seen {
  requests: number;
  inputTokens: number;
  cachedInputTokens: number;
  outputTokens: number;
  reasoningTokens: number;
  toolCalls: number;
  webSearches: number;
}
const none = (): Seen => ({
  requests: 0,
  inputTokens: 0,
  cachedInputTokens: 0,
  outputTokens: 0,
  reasoningTokens: 0,
  toolCalls: 0,
  webSearches: 0,
});

describe.each(stores)("per-key usage in %s matches what the clients received", (_, location) => {
  let gateway: RunningGateway;
  let store: string;
  const seen: Record<string, Seen> = { alice: none(), bob: none(), [PLAIN_DIGEST]: none() };
  const start = async () =>
    gatewayWith(
      script,
      { PROXY_STORE: store, PROXY_ADMIN_KEY: ADMIN, ALICE_KEY: ALICE, PROXY_TOOL_MODE: "prompt" },
      { apiKeys: KEYS },
    );
  beforeAll(async () => {
    store = await location();
    gateway = await start();
  }, 60_000);
  afterAll(() => gateway?.shutdown("test done"));

  const openai = (key: string) => new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key, maxRetries: 0 });
  const addChat = (who: Seen, usage: OpenAI.CompletionUsage | undefined, calls: number) => {
    who.requests++;
    who.inputTokens += usage?.prompt_tokens ?? 0;
    who.cachedInputTokens += usage?.prompt_tokens_details?.cached_tokens ?? 0;
    who.outputTokens += usage?.completion_tokens ?? 0;
    who.reasoningTokens += usage?.completion_tokens_details?.reasoning_tokens ?? 0;
    who.toolCalls += calls;
  };

  it("records every turn of every key, whatever the surface", async () => {
    const alice = openai(ALICE);
    const plain = await alice.chat.completions.create({
      model: "m",
      messages: [{ role: "user", content: "hi" }],
    });
    addChat(seen.alice as Seen, plain.usage, 0);
    const tools = await alice.chat.completions.create({
      model: "m",
      messages: [{ role: "user", content: "weather in Oslo?" }],
      tools: [
        {
          type: "function",
          function: {
            name: "get_weather",
            parameters: { type: "object", properties: { city: { type: "string" } } },
          },
        },
      ],
    });
    addChat(seen.alice as Seen, tools.usage, tools.choices[0]?.message.tool_calls?.length ?? 0);
    expect(tools.choices[0]?.message.tool_calls).toHaveLength(1);
    const stream = await alice.chat.completions.create({
      model: "m",
      messages: [{ role: "user", content: "stream it" }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let streamed: OpenAI.CompletionUsage | undefined;
    for await (const chunk of stream) streamed = chunk.usage ?? streamed;
    addChat(seen.alice as Seen, streamed, 0);

    const bob = new Anthropic({ baseURL: gateway.url, apiKey: BOB, maxRetries: 0 });
    const message = await bob.messages.create({
      model: "m",
      max_tokens: 100,
      messages: [{ role: "user", content: "hi from bob" }],
    });
    const b = seen.bob as Seen;
    b.requests++;
    // Anthropic counts cache reads beside the input; the gateway's input includes them.
    b.inputTokens += message.usage.input_tokens + (message.usage.cache_read_input_tokens ?? 0);
    b.cachedInputTokens += message.usage.cache_read_input_tokens ?? 0;
    b.outputTokens += message.usage.output_tokens;

    // Google's clients send the key as x-goog-api-key; thoughts are counted apart from candidates.
    const gemini = new GoogleGenAI({
      apiKey: BOB,
      httpOptions: { baseUrl: gateway.url, apiVersion: "v1beta" },
    });
    const generated = await gemini.models.generateContent({ model: "m", contents: "hi from bob's gemini" });
    const g = generated.usageMetadata;
    b.requests++;
    b.inputTokens += g?.promptTokenCount ?? 0;
    b.cachedInputTokens += g?.cachedContentTokenCount ?? 0;
    b.outputTokens += (g?.candidatesTokenCount ?? 0) + (g?.thoughtsTokenCount ?? 0);

    const response = await openai(PLAIN).responses.create({ model: "m", input: "hi from plain" });
    const p = seen[PLAIN_DIGEST] as Seen;
    p.requests++;
    p.inputTokens += response.usage?.input_tokens ?? 0;
    p.cachedInputTokens += response.usage?.input_tokens_details.cached_tokens ?? 0;
    p.outputTokens += response.usage?.output_tokens ?? 0;
    p.reasoningTokens += response.usage?.output_tokens_details.reasoning_tokens ?? 0;

    const today = new Date().toISOString().slice(0, 10);
    for (const [key, expected] of Object.entries(seen)) {
      const answer = await adminGet(gateway.url, `/admin/usage?key=${key}&from=${today}&to=${today}`);
      expect(answer.status).toBe(200);
      const body = (await answer.json()) as { data: Array<Record<string, unknown>>; total: Seen };
      // No route took these turns (a bare backend): they count under codex, the one route it stands for.
      expect(body.data).toEqual([{ key, route: "codex", day: today, errors: 0, ...expected }]);
      expect(expected.inputTokens).toBeGreaterThan(0);
    }
    const all = (await (await adminGet(gateway.url, "/admin/usage?route=codex")).json()) as { total: Seen };
    expect(all.total.requests).toBe(6);
  });

  it("counts per key in Prometheus: by name, an unnamed key by its place in the list, never its digest", async () => {
    const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
    expect(metrics).toContain('proxy_key_requests_total{key="alice"} 3');
    expect(metrics).toContain('proxy_key_requests_total{key="bob"} 2');
    expect(metrics).toContain('proxy_key_requests_total{key="key#3"} 1');
    expect(metrics).toContain('proxy_key_tool_calls_total{key="alice"} 1');
    // Not even a prefix of the digest: a short key could be found from one offline.
    expect(metrics).not.toContain(PLAIN_DIGEST.slice(0, 8));
  });

  it("writes what it gathered at shutdown: a restarted gateway reports the same usage", async () => {
    type Rows = { data: Array<{ key: string; requests: number }> };
    const before = (await (await adminGet(gateway.url, "/admin/usage")).json()) as Rows;
    const alice = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: ALICE, maxRetries: 0 });
    await alice.chat.completions.create({ model: "other", messages: [{ role: "user", content: "last" }] });
    await gateway.shutdown("restart");
    gateway = await start();
    const after = (await (await adminGet(gateway.url, "/admin/usage")).json()) as Rows;
    expect(after.data.filter((r) => r.key !== "alice")).toEqual(before.data.filter((r) => r.key !== "alice"));
    const requestsOf = (rows: Rows) => rows.data.find((r) => r.key === "alice")?.requests ?? 0;
    expect(requestsOf(after)).toBe(requestsOf(before) + 1);
  });

  it("answers /admin/usage only with the admin key, and refuses bad dates naming the field", async () => {
    expect((await adminGet(gateway.url, "/admin/usage", null)).status).toBe(401);
    expect((await adminGet(gateway.url, "/admin/usage", ALICE)).status).toBe(401);
    const bad = await adminGet(gateway.url, "/admin/usage?from=2026-13-45");
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { param: string } }).error.param).toBe("from");
    // The admin key is no API key.
    const api = await fetch(`${gateway.url}/v1/models`, { headers: { authorization: `Bearer ${ADMIN}` } });
    expect(api.status).toBe(401);
  });
});

describe("without PROXY_ADMIN_KEY", () => {
  it("the admin endpoints do not exist", async () => {
    const gateway = await gatewayWith(script, { PROXY_STORE: "memory" }, { apiKeys: [PLAIN] });
    try {
      expect((await adminGet(gateway.url, "/admin/usage")).status).toBe(404);
    } finally {
      await gateway.shutdown("test done");
    }
  });
});

describe("with model routes", () => {
  it("records the route that answered, after a fallback, with the upstream's usage", async () => {
    const stack = await startUpstreamGateway(
      [
        () => ({ status: 503, errorMessage: "primary is down" }),
        () => ({ text: "from local", usage: { inputTokens: 77, outputTokens: 9 } }),
      ],
      ([primary, local]) => [
        { id: "primary", backend: "openai-compatible", baseUrl: primary, fallbacks: ["local"] },
        { id: "local", backend: "openai-compatible", baseUrl: local },
      ],
      {
        PROXY_API_KEYS: JSON.stringify([{ name: "carol", key: PLAIN }]),
        PROXY_ADMIN_KEY: ADMIN,
        PROXY_STORE: "memory",
        LOG_LEVEL: "silent",
      },
    );
    try {
      const client = new OpenAI({ baseURL: `${stack.url}/v1`, apiKey: PLAIN, maxRetries: 0 });
      const answer = await client.chat.completions
        .create({ model: "primary", messages: [{ role: "user", content: "hi" }] })
        .withResponse();
      expect(answer.response.headers.get("x-proxy-route")).toBe("local");
      const body = (await (await adminGet(stack.url, "/admin/usage?key=carol")).json()) as {
        data: unknown[];
      };
      expect(body.data).toMatchObject([
        {
          key: "carol",
          route: "local",
          requests: 1,
          inputTokens: answer.data.usage?.prompt_tokens,
          outputTokens: answer.data.usage?.completion_tokens,
        },
      ]);
      expect(answer.data.usage?.prompt_tokens).toBe(77);
    } finally {
      await stack.close();
    }
  });
});
