import { createScriptedBackend, o200kEncoding } from "@proxy/core/testing";
import { Hono } from "hono";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createChatCompletionsApp } from "../src/index.js";
import { sseData, startGateway, type TestGateway } from "./support/gateway.js";
import { toolBlock, USER_ASKS, WEATHER_TOOL } from "./support/scripts.js";

let gateway: TestGateway | undefined;
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
});

const body = { model: "gpt-test", messages: [...USER_ASKS], tools: [WEATHER_TOOL] };

describe("stream lifecycle", () => {
  it("sends `: ping` comments while the backend is silent, and the client can still parse the stream", async () => {
    gateway = await startGateway([{ reasoning: ["Thinking"], chunks: ["never"], delayMs: 600_000 }], {
      keepAliveMs: 5,
    });
    const controller = new AbortController();
    const res = await fetch(`${gateway.baseURL}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ...body, stream: true }),
      signal: controller.signal,
    });
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let received = "";
    while (!/Thinking[\s\S]*\n: ping\n\n$/.test(received)) {
      const { value, done } = await reader.read();
      if (done) break;
      received += decoder.decode(value, { stream: true });
    }
    controller.abort();
    expect(received).toMatch(/"reasoning_content":"Thinking"[^\n]*\n\n(: ping\n\n)+$/);
    expect(sseData(received).map((d) => JSON.parse(d).object)).toEqual([
      "chat.completion.chunk",
      "chat.completion.chunk",
    ]);
    const g = gateway;
    await vi.waitFor(() => expect(g.backend.aborts()).toBe(1));
  });

  it("works standalone (no server, random ids) and inside another Hono app with its own onError", async () => {
    const backend = createScriptedBackend([{ chunks: toolBlock("get_weather", { city: "Paris" }) }]);
    const chat = createChatCompletionsApp({ backend, tokens: o200kEncoding });
    const direct = await chat.request("/chat/completions", { method: "POST", body: JSON.stringify(body) });
    const completion = (await direct.json()) as {
      id: string;
      choices: Array<{ message: { tool_calls: Array<{ id: string }> } }>;
    };
    expect(completion.id).toMatch(/^chatcmpl-[0-9A-Za-z]{24}$/);
    expect(completion.choices[0]?.message.tool_calls[0]?.id).toMatch(/^call_[0-9A-Za-z]{24}$/);

    const parent = new Hono();
    parent.onError((_e, c) => c.text("parent error handler", 500));
    parent.route("/api/v1", chat);
    const bad = await parent.request("/api/v1/chat/completions", { method: "POST", body: "{" });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { code: string } }).error.code).toBe("invalid_json");
  });
});
