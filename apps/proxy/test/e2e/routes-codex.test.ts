import { startScriptedUpstream } from "@proxy/adapter-openai-compatible/testing";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lastUserText, type RecordedRequest, startE2E, toolCallText } from "./e2e-gateway.js";
import { lastUpstreamUserText, type RecordedUpstreamRequest } from "./upstream-gateway.js";

const weather = {
  type: "function" as const,
  function: {
    name: "get_weather",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  },
};

/** Behind codex: answers slowly, so both routes' turns are in flight at once. */
const codexModel = (request: RecordedRequest) => {
  const city = /weather in (\w+)/i.exec(lastUserText(request))?.[1] ?? "nowhere";
  return { chunks: ["Checking. ", toolCallText("get_weather", { city, via: "codex" })], delayMs: 100 };
};

/** The OpenAI-compatible upstream: same tool, different arguments, also slowly. */
const localModel = (request: RecordedUpstreamRequest) => {
  const city = /weather in (\w+)/i.exec(lastUpstreamUserText(request))?.[1] ?? "nowhere";
  return { chunks: ["Looking. ", toolCallText("get_weather", { city, via: "local" })], delayMs: 100 };
};

describe("one gateway, two routes: codex and an OpenAI-compatible upstream", { timeout: 60_000 }, () => {
  let upstream: Awaited<ReturnType<typeof startScriptedUpstream>>;
  let e2e: Awaited<ReturnType<typeof startE2E>>;
  let client: OpenAI;
  beforeAll(async () => {
    upstream = await startScriptedUpstream(localModel);
    e2e = await startE2E(codexModel, {
      PROXY_MODELS: JSON.stringify([
        { id: "e2e-model", backend: "codex", aliases: ["codex-default"] },
        { id: "e2e-model-high", backend: "codex", upstreamModel: "e2e-model", reasoningEffort: "high" },
        {
          id: "llama-local",
          backend: "openai-compatible",
          baseUrl: upstream.url,
          upstreamModel: "llama-3.1-8b",
        },
      ]),
    });
    client = new OpenAI({ baseURL: `${e2e.url}/v1`, apiKey: "sk-e2e", maxRetries: 0 });
  }, 60_000);
  afterAll(async () => {
    await e2e?.close();
    await upstream?.close();
  });

  it("serves both routes concurrently, each from its own backend, without cross-talk", async () => {
    const ask = (model: string, city: string) =>
      client.chat.completions.create({
        model,
        messages: [{ role: "user", content: `What's the weather in ${city}?` }],
        tools: [weather],
      });
    const cities = ["Paris", "Oslo", "Lima", "Rome"];
    const results = await Promise.all(
      cities.flatMap((city) => [ask("e2e-model", city), ask("llama-local", city)]),
    );
    results.forEach((res, i) => {
      const city = cities[Math.floor(i / 2)];
      const via = i % 2 === 0 ? "codex" : "local";
      const call = res.choices[0]?.message.tool_calls?.[0];
      expect(call?.type === "function" && JSON.parse(call.function.arguments)).toEqual({ city, via });
      expect(res.model).toBe(i % 2 === 0 ? "e2e-model" : "llama-local");
    });
    expect(upstream.requests.every((r) => r.body.model === "llama-3.1-8b" && !("tools" in r.body))).toBe(
      true,
    );
    expect(e2e.provider.requests.length).toBeGreaterThanOrEqual(4);
  });

  it("a route carrying a reasoning effort is just a route: codex is asked for its upstreamModel at that effort", async () => {
    await client.chat.completions.create({
      model: "e2e-model-high",
      messages: [{ role: "user", content: "weather in Bergen?" }],
      tools: [weather],
    });
    const sent = e2e.provider.requests.at(-1)!;
    expect(sent.body.model).toBe("e2e-model");
    expect(sent.body.reasoning).toMatchObject({ effort: "high" });
  });

  it("lists every route and alias, and /readyz reports each route", async () => {
    expect((await client.models.list()).data.map((m) => m.id)).toEqual([
      "e2e-model",
      "codex-default",
      "e2e-model-high",
      "llama-local",
    ]);
    const ready = (await (await fetch(`${e2e.url}/readyz`)).json()) as {
      status: string;
      routes: Array<{ route: string; backend: string; ready: boolean }>;
    };
    expect(ready.status).toBe("ready");
    expect(ready.routes.map((r) => [r.route, r.backend, r.ready])).toEqual([
      ["e2e-model", "codex", true],
      ["e2e-model-high", "codex", true],
      ["llama-local", "openai-compatible", true],
    ]);
  });
});
