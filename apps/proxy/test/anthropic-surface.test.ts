import { createScriptedBackend } from "@proxy/core/testing";
import { createRouteStacks, createRouteTable } from "@proxy/routing";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { serveApp } from "./support/serve-app.js";

const hello = { model: "claude-sonnet-4-5", max_tokens: 64, messages: [{ role: "user", content: "hi" }] };
const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${url}/v1/messages?beta=true`, {
    method: "POST",
    headers: { "content-type": "application/json", "anthropic-version": "2023-06-01", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });

describe("the Messages surface inside the gateway app", () => {
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });
  const start = async (options: Parameters<typeof serveApp>[1] = {}) => {
    const inner = createScriptedBackend([{ chunks: ["Hello!"] }], { models: [{ id: "gpt-5.5" }] });
    const served = await serveApp(inner, options);
    closers.push(served.close);
    return { ...served, inner };
  };

  it("refusals of the browser guards (content type, origin) are Anthropic-shaped on /v1/messages", async () => {
    const { url, inner } = await start();
    const plain = await fetch(`${url}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "text/plain", "anthropic-version": "2023-06-01" },
      body: JSON.stringify(hello),
    });
    expect(plain.status).toBe(415);
    expect(await plain.json()).toMatchObject({ type: "error", error: { type: "invalid_request_error" } });
    const foreign = await post(url, hello, { origin: "https://evil.example" });
    expect(foreign.status).toBe(403);
    expect(await foreign.json()).toMatchObject({ type: "error", error: { type: "invalid_request_error" } });
    expect(inner.requests).toHaveLength(0);
  });

  it("takes the key from x-api-key (Claude Code) or a Bearer token (the SDK); refusals are Anthropic-shaped", async () => {
    const { url } = await start({ apiKeys: ["sk-ant-key"] });
    expect((await post(url, hello, { "x-api-key": "sk-ant-key" })).status).toBe(200);
    expect((await post(url, hello, { authorization: "Bearer sk-ant-key" })).status).toBe(200);
    for (const headers of [{}, { "x-api-key": "wrong" }, { authorization: "Bearer wrong" }]) {
      const res = await post(url, hello, headers);
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ type: "error", error: { type: "authentication_error" } });
      expect(res.headers.get("request-id")).toBeTruthy();
    }
    // The OpenAI surfaces take x-api-key too, and still answer in their own shape.
    const chat = await fetch(`${url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": "wrong" },
      body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }] }),
    });
    expect(chat.status).toBe(401);
    expect(await chat.json()).toMatchObject({
      error: { type: "invalid_request_error", code: "invalid_api_key" },
    });
  });

  it("a body over the limit is a 413 request_too_large in Anthropic's shape", async () => {
    const { url } = await start({ bodyLimitBytes: 1024 });
    const res = await post(url, { ...hello, messages: [{ role: "user", content: "x".repeat(4096) }] });
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ type: "error", error: { type: "request_too_large" } });
  });

  it("claude-* names run on the backend's default model unless an alias routes them", async () => {
    const { url, inner } = await start({ aliases: { "claude-opus-5-5": "gpt-5.5" } });
    await post(url, hello);
    expect(inner.requests.at(-1)?.model).toBe("");
    await post(url, { ...hello, model: "claude-opus-5-5" });
    expect(inner.requests.at(-1)?.model).toBe("gpt-5.5");
    await post(url, { ...hello, model: "gpt-5.5" });
    expect(inner.requests.at(-1)?.model).toBe("gpt-5.5");
  });

  it("with model routes, a claude-* name goes where a route names it; an unrouted one is a 404 not_found_error", async () => {
    const codex = createScriptedBackend([{ chunks: ["from codex"] }]);
    const upstream = createScriptedBackend([{ chunks: ["from upstream"] }]);
    const routed = createRouteTable(
      createRouteStacks(
        [
          { config: { id: "gpt-5.5", backend: "codex", aliases: ["claude-opus-5-5"] }, backend: codex },
          {
            config: { id: "qwen3", backend: "openai-compatible", baseUrl: "http://127.0.0.1:1/v1" },
            backend: upstream,
          },
        ],
        pino({ level: "silent" }),
      ),
    );
    const served = await serveApp(routed.backend, { routed: true });
    closers.push(served.close);
    const { url } = served;
    const routedAnswer = await (await post(url, { ...hello, model: "claude-opus-5-5" })).json();
    expect(routedAnswer).toMatchObject({
      model: "claude-opus-5-5",
      content: [{ type: "text", text: "from codex" }],
    });
    expect(codex.requests.at(-1)?.model).toBe("gpt-5.5");
    const missing = await post(url, { ...hello, model: "claude-haiku-4-5" });
    expect(missing.status).toBe(404);
    const body = (await missing.json()) as { type: string; error: { type: string; message: string } };
    expect(body).toMatchObject({ type: "error", error: { type: "not_found_error" } });
    expect(body.error.message).toContain("claude-haiku-4-5");
  });

  it("GET /v1/models and /v1/models/{id} answer in Anthropic's shape when anthropic-version is sent", async () => {
    const { url } = await start({ aliases: { "claude-opus-5-5": "gpt-5.5" } });
    const headers = { "anthropic-version": "2023-06-01" };
    const list = await (await fetch(`${url}/v1/models`, { headers })).json();
    expect(list).toEqual({
      data: [
        { type: "model", id: "gpt-5.5", display_name: "gpt-5.5", created_at: "2023-11-14T22:13:20.000Z" },
        {
          type: "model",
          id: "claude-opus-5-5",
          display_name: "claude-opus-5-5",
          created_at: "2023-11-14T22:13:20.000Z",
        },
      ],
      has_more: false,
      first_id: "gpt-5.5",
      last_id: "claude-opus-5-5",
    });
    const one = await (await fetch(`${url}/v1/models/claude-opus-5-5`, { headers })).json();
    expect(one).toMatchObject({ type: "model", id: "claude-opus-5-5" });
    const openai = await (await fetch(`${url}/v1/models`)).json();
    expect(openai).toMatchObject({ object: "list" });
  });

  it("wrong methods get 405 with Allow: POST", async () => {
    const { url } = await start();
    for (const path of ["/v1/messages", "/v1/messages/count_tokens"]) {
      const res = await fetch(`${url}${path}`);
      expect(res.status).toBe(405);
      expect(res.headers.get("allow")).toBe("POST");
    }
  });

  it("the request log line names the messages API", async () => {
    const { url, logs } = await start();
    await post(url, hello);
    expect(logs.find((l) => l.msg === "request" && l.route === "/v1/messages")).toMatchObject({
      status: 200,
      model: "claude-sonnet-4-5",
      finish: "stop",
    });
  });
});
