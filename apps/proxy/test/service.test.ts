import { createScriptedBackend } from "@proxy/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { serveApp } from "./support/serve-app.js";

const chat = (body: object) => ({
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify(body),
});
const hello = { model: "m", messages: [{ role: "user", content: "hi" }] };

describe("gateway service routes", () => {
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });
  const start = async (options: Parameters<typeof serveApp>[1] = {}) => {
    const served = await serveApp(
      createScriptedBackend([{ chunks: ["Hello!"] }], { models: [{ id: "gpt-5.5" }] }),
      options,
    );
    closers.push(served.close);
    return served;
  };

  it("answers health, readiness, OpenAPI and model listing (with aliases)", async () => {
    const { url } = await start({ aliases: { "gpt-4o": "gpt-5.5" } });
    expect(await (await fetch(`${url}/healthz`)).json()).toEqual({ status: "ok" });
    const ready = await fetch(`${url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: "ready", ready: true });
    const openapi = (await (await fetch(`${url}/openapi.json`)).json()) as { openapi: string; paths: object };
    expect(openapi.openapi).toBe("3.1.0");
    expect(Object.keys(openapi.paths)).toContain("/v1/chat/completions");
    // The stored-state routes come from the same one list (the Conversations API included).
    expect(Object.keys(openapi.paths)).toEqual(
      expect.arrayContaining(["/v1/responses/{id}/input_items", "/v1/conversations/{id}/items/{item_id}"]),
    );
    // So do the Gemini surface's: model actions as documented paths with one `model` parameter.
    const paths = openapi.paths as Record<string, Record<string, { parameters?: Array<{ name: string }> }>>;
    expect(Object.keys(paths)).toEqual(
      expect.arrayContaining([
        "/v1beta/models/{model}:generateContent",
        "/v1beta/models/{model}:streamGenerateContent",
        "/v1beta/models/{model}:countTokens",
        "/v1beta/models/{model}",
        "/v1/models/{model}:generateContent",
        "/v1/gemini",
      ]),
    );
    expect(paths["/v1beta/models/{model}:generateContent"]?.post?.parameters?.map((p) => p.name)).toEqual([
      "model",
    ]);
    const models = (await (await fetch(`${url}/v1/models`)).json()) as {
      object: string;
      data: Array<{ id: string; object: string }>;
    };
    expect(models.object).toBe("list");
    expect(models.data.map((m) => m.id)).toEqual(["gpt-5.5", "gpt-4o"]);
    expect(models.data[0]?.object).toBe("model");
  });

  it("answers unknown routes with 404 and wrong methods with 405, both in OpenAI's error shape", async () => {
    const { url } = await start();
    const missing = await fetch(`${url}/v1/nope`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get("content-type")).toContain("application/json");
    expect(await missing.json()).toMatchObject({
      error: { type: "invalid_request_error", code: "unknown_url" },
    });
    const wrong = await fetch(`${url}/v1/chat/completions`);
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get("allow")).toBe("POST");
    expect(await wrong.json()).toMatchObject({ error: { code: "method_not_allowed" } });
    const put = await fetch(`${url}/v1/conversations/conv_1`, { method: "PUT" });
    expect(put.status).toBe(405);
    expect(put.headers.get("allow")).toBe("GET, POST, DELETE");
  });

  it("enforces bearer keys with 401 in OpenAI shape and lets the right key through", async () => {
    const { url, logs } = await start({ apiKeys: ["sk-test-key-1", "sk-test-key-2"] });
    const none = await fetch(`${url}/v1/chat/completions`, chat(hello));
    expect(none.status).toBe(401);
    expect(await none.json()).toMatchObject({
      error: { type: "invalid_request_error", code: "invalid_api_key" },
    });
    const bad = await fetch(`${url}/v1/models`, { headers: { authorization: "Bearer sk-wrong-key" } });
    expect(bad.status).toBe(401);
    const good = await fetch(`${url}/v1/chat/completions`, {
      ...chat(hello),
      headers: { "content-type": "application/json", authorization: "Bearer sk-test-key-2" },
    });
    expect(good.status).toBe(200);
    expect(JSON.stringify(logs)).not.toContain("sk-test-key");
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
  });

  it("rejects bodies over the limit with 413", async () => {
    const { url } = await start({ bodyLimitBytes: 1024 });
    const res = await fetch(
      `${url}/v1/chat/completions`,
      chat({ ...hello, messages: [{ role: "user", content: "x".repeat(5000) }] }),
    );
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ error: { code: "request_too_large" } });
  });

  it("echoes x-request-id, logs one summary line per request and counts it in /metrics", async () => {
    const { url, logs } = await start();
    const res = await fetch(`${url}/v1/chat/completions`, {
      ...chat(hello),
      headers: { "content-type": "application/json", "x-request-id": "req-abc" },
    });
    expect(res.headers.get("x-request-id")).toBe("req-abc");
    await res.text();
    await new Promise((r) => setTimeout(r, 20));
    const line = logs.find((l) => l.requestId === "req-abc" && l.msg === "request");
    expect(line).toMatchObject({
      route: "/v1/chat/completions",
      status: 200,
      model: "m",
      toolCalls: 0,
      outputMode: "openai-json",
    });
    const metrics = await (await fetch(`${url}/metrics`)).text();
    expect(metrics).toMatch(
      /proxy_http_requests_total\{route="\/v1\/chat\/completions",method="POST",status="200"\} 1/,
    );
    expect(metrics).toContain("proxy_backend_in_flight_turns");
  });

  it("labels a path by the handler that answered it, request after request", async () => {
    const { url, logs } = await start();
    const send = async (id: string, init: RequestInit, path = "/v1/chat/completions") => {
      const res = await fetch(`${url}${path}`, {
        ...init,
        headers: { ...(init.headers as Record<string, string>), "x-request-id": id },
      });
      await res.text();
      return res.status;
    };
    // The route answers, then a guard in front of it refuses the same path, then the route again.
    expect(await send("ok-1", chat(hello))).toBe(200);
    expect(await send("refused", { ...chat(hello), headers: { "content-type": "text/plain" } })).toBe(415);
    expect(await send("ok-2", chat(hello))).toBe(200);
    expect(await send("other-method", { method: "PUT", headers: {} })).toBe(405);
    await new Promise((r) => setTimeout(r, 20));
    const routeOf = (id: string) => logs.find((l) => l.requestId === id && l.msg === "request")?.route;
    expect(routeOf("ok-1")).toBe("/v1/chat/completions");
    expect(routeOf("ok-2")).toBe("/v1/chat/completions");
    expect(routeOf("refused")).toBe("/*");
    // Another method on the path is answered by its 405 handler, registered on the path itself.
    expect(routeOf("other-method")).toBe("/v1/chat/completions");
    const metrics = await (await fetch(`${url}/metrics`)).text();
    expect(metrics).toMatch(
      /proxy_http_requests_total\{route="\/v1\/chat\/completions",method="POST",status="200"\} 2\n/,
    );
    expect(metrics).toMatch(/proxy_http_requests_total\{route="\/\*",method="POST",status="415"\} 1\n/);
    expect(metrics).toMatch(
      /proxy_http_requests_total\{route="\/v1\/chat\/completions",method="PUT",status="405"\} 1\n/,
    );
  });

  it("logs a JSON answer and a stream once each, timed to their first byte and their end", async () => {
    const { url, logs } = await start();
    for (const [id, stream] of [
      ["req-json", false],
      ["req-sse", true],
    ] as const) {
      const res = await fetch(`${url}/v1/chat/completions`, {
        ...chat({ ...hello, stream }),
        headers: { "content-type": "application/json", "x-request-id": id },
      });
      expect(res.headers.get("x-request-id")).toBe(id);
      expect(await res.text()).toContain("Hello!");
    }
    await new Promise((r) => setTimeout(r, 20));
    for (const [id, stream] of [
      ["req-json", false],
      ["req-sse", true],
    ] as const) {
      const lines = logs.filter((l) => l.requestId === id && l.msg === "request");
      expect(lines).toHaveLength(1);
      const line = lines[0] as { stream: boolean; ttfbMs: number; durationMs: number; status: number };
      expect(line).toMatchObject({ stream, status: 200 });
      expect(line.ttfbMs).toBeGreaterThanOrEqual(0);
      expect(line.ttfbMs).toBeLessThanOrEqual(line.durationMs);
    }
  });

  it("puts the request id on lines logged from inside the turn", async () => {
    const { url, logs } = await start({
      wrap: (backend, logger) => ({
        ...backend,
        stream(request, options) {
          logger.warn({ model: request.model }, "inside the turn");
          return backend.stream(request, options);
        },
      }),
    });
    await (
      await fetch(`${url}/v1/chat/completions`, {
        ...chat(hello),
        headers: { "content-type": "application/json", "x-request-id": "req-inner" },
      })
    ).text();
    expect(logs.find((l) => l.msg === "inside the turn")).toMatchObject({ requestId: "req-inner" });
  });

  it("times out a silent backend with an OpenAI-shaped 504 and aborts the backend turn", async () => {
    const inner = createScriptedBackend([{ chunks: [], hangAfterChunks: 0 }]);
    const served = await serveApp(inner, { settings: { idleTimeoutMs: 100 } });
    closers.push(served.close);
    const res = await fetch(`${served.url}/v1/chat/completions`, chat(hello));
    expect(res.status).toBe(504);
    expect(await res.json()).toMatchObject({ error: { code: "timeout", type: "server_error" } });
    expect(inner.aborts()).toBe(1);
    expect(inner.active()).toBe(0);
  });

  it("reports not ready (503) while the gateway drains", async () => {
    const { url, control } = await start();
    await control.drain(0);
    const res = await fetch(`${url}/readyz`);
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ status: "not_ready", detail: "draining" });
  });

  it("answers CORS preflights only when configured", async () => {
    const off = await start();
    const pre = await fetch(`${off.url}/v1/chat/completions`, {
      method: "OPTIONS",
      headers: { origin: "app://obsidian.md", "access-control-request-method": "POST" },
    });
    expect(pre.headers.get("access-control-allow-origin")).toBeNull();
    const on = await start({ corsOrigins: ["app://obsidian.md"] });
    const pre2 = await fetch(`${on.url}/v1/chat/completions`, {
      method: "OPTIONS",
      headers: { origin: "app://obsidian.md", "access-control-request-method": "POST" },
    });
    expect(pre2.headers.get("access-control-allow-origin")).toBe("app://obsidian.md");
  });
});
