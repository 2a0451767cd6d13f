import { createScriptedBackend } from "@proxy/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { serveApp } from "./support/serve-app.js";

/** The throwaway fifth surface, served by the real gateway from its one list entry. */
describe("echo surface through the gateway", () => {
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => close?.());

  it("is guarded (key, body limit), answers its route, and lists it in /openapi.json", async () => {
    const served = await serveApp(createScriptedBackend([{ chunks: ["hello", " world"] }]), {
      apiKeys: ["sk-test"],
      bodyLimitBytes: 1024,
    });
    close = served.close;
    const post = (body: string, key?: string) =>
      fetch(`${served.url}/echo/v1/complete`, {
        method: "POST",
        headers: { "content-type": "application/json", ...(key ? { authorization: `Bearer ${key}` } : {}) },
        body,
      });
    const ask = JSON.stringify({ model: "m", prompt: "hi" });
    const refused = await post(ask);
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ error: { code: "invalid_api_key" } });
    expect((await post(JSON.stringify({ model: "m", prompt: "x".repeat(2048) }), "sk-test")).status).toBe(
      413,
    );
    const answered = await post(ask, "sk-test");
    expect(answered.status).toBe(200);
    expect(await answered.json()).toEqual({ text: "hello world", finish: "stop" });
    expect(
      (await fetch(`${served.url}/echo/v1/complete`, { headers: { authorization: "Bearer sk-test" } }))
        .status,
    ).toBe(405);
    const openapi = (await (await fetch(`${served.url}/openapi.json`)).json()) as {
      paths: Record<string, unknown>;
    };
    expect(Object.keys(openapi.paths)).toContain("/echo/v1/complete");
  });
});
