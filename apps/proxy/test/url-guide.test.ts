import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import { createScriptedBackend } from "@proxy/core/testing";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gatewayIndex } from "../src/http/url-guide.js";
import { serveApp } from "./support/serve-app.js";

const post = (body: object) => ({
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify(body),
});
const hello = { model: "m", messages: [{ role: "user", content: "hi" }] };

describe("a wrong URL is told the right one, in the shape of the surface it meant", () => {
  let served: Awaited<ReturnType<typeof serveApp>>;
  let url: string;
  beforeAll(async () => {
    served = await serveApp(createScriptedBackend([{ chunks: ["Hello!"] }], { models: [{ id: "m" }] }));
    url = served.url;
  });
  afterAll(() => served?.close());

  it.each([
    ["POST", "/chat/completions", "POST /v1/chat/completions", "/v1"],
    ["POST", "/responses", "POST /v1/responses", "/v1"],
    ["POST", "/v1/v1/chat/completions", "POST /v1/chat/completions", "/v1"],
    ["POST", "/api/v1/responses", "POST /v1/responses", "/v1"],
    ["GET", "/models", "GET /v1/models", "/v1"],
  ])("%s %s: an OpenAI 404 naming %s", async (method, path, meant, base) => {
    const res = await fetch(`${url}${path}`, method === "POST" ? post(hello) : {});
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({
      error: {
        message: `Unknown request URL: ${method} ${path}. Did you mean ${meant}? Its clients take the base URL ${url}${base}.`,
        type: "invalid_request_error",
        param: null,
        code: "unknown_url",
      },
    });
  });

  it("the openai SDK with a base URL without /v1 shows the fix, and does not retry a 404", async () => {
    const client = new OpenAI({ baseURL: url, apiKey: "unused" });
    const failure = await client.chat.completions
      .create({ model: "m", messages: [{ role: "user", content: "hi" }] })
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(OpenAI.NotFoundError);
    expect((failure as Error).message).toContain(
      `Did you mean POST /v1/chat/completions? Its clients take the base URL ${url}/v1.`,
    );
  });

  it.each([
    ["/messages", "POST /v1/messages"],
    ["/v1/v1/messages", "POST /v1/messages"],
  ])("POST %s: an Anthropic 404 naming %s and the host alone as base URL", async (path, meant) => {
    const res = await fetch(`${url}${path}`, post(hello));
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({
      type: "error",
      error: {
        type: "not_found_error",
        message: `Unknown request URL: POST ${path}. Did you mean ${meant}? Its clients take the base URL ${url}.`,
      },
    });
  });

  it("the Anthropic SDK with a base URL ending in /v1 shows the fix", async () => {
    const client = new Anthropic({ baseURL: `${url}/v1`, apiKey: "unused", maxRetries: 0 });
    const failure = await client.messages
      .create({ model: "m", max_tokens: 10, messages: [{ role: "user", content: "hi" }] })
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(Anthropic.NotFoundError);
    expect((failure as Error).message).toContain(`Its clients take the base URL ${url}.`);
  });

  it.each([
    ["/v1beta/v1beta/models/m:generateContent", "POST /v1beta/models/m:generateContent"],
    ["/models/m:generateContent", "POST /v1beta/models/m:generateContent"],
  ])("POST %s: a Google 404 naming %s", async (path, meant) => {
    const res = await fetch(`${url}${path}`, post({ contents: [{ role: "user", parts: [{ text: "hi" }] }] }));
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({
      error: {
        code: 404,
        status: "NOT_FOUND",
        message: `Unknown request URL: POST ${path}. Did you mean ${meant}? Its clients take the base URL ${url}.`,
      },
    });
  });

  it("@google/genai with a base URL ending in /v1beta shows the fix", async () => {
    const ai = new GoogleGenAI({ apiKey: "unused", httpOptions: { baseUrl: `${url}/v1beta` } });
    const failure = await ai.models
      .generateContent({ model: "m", contents: "hi" })
      .catch((e: unknown) => e as Error);
    // It asks for /v1beta/v1/models/m:generateContent: the part after the base URL is served.
    expect(String((failure as Error).message)).toContain(
      `Did you mean POST /v1/models/m:generateContent? Its clients take the base URL ${url}.`,
    );
  });

  it("an unknown URL with nothing close gets the shape of the surface that owns its path", async () => {
    const messages = await fetch(`${url}/v1/messages/nope`, post(hello));
    expect([messages.status, await messages.json()]).toEqual([
      404,
      {
        type: "error",
        error: { type: "not_found_error", message: "Unknown request URL: POST /v1/messages/nope." },
      },
    ]);
    const other = await fetch(`${url}/v1/nope`);
    expect([other.status, await other.json()]).toEqual([
      404,
      {
        error: {
          message: "Unknown request URL: GET /v1/nope.",
          type: "invalid_request_error",
          param: null,
          code: "unknown_url",
        },
      },
    ]);
  });

  it("GET / says where things are", async () => {
    const res = await fetch(`${url}/`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      name: "codex-tool-gateway",
      version: "test",
      base_urls: { openai: `${url}/v1`, anthropic: url, gemini: url },
      endpoints: {
        chat_completions: "/v1/chat/completions",
        responses: "/v1/responses",
        messages: "/v1/messages",
        gemini: "/v1beta/models/{model}:generateContent",
        models: "/v1/models",
      },
      openapi: "/openapi.json",
      healthz: "/healthz",
      readyz: "/readyz",
      inspector:
        "The request inspector is off: start the gateway with PROXY_INSPECTOR=on (with API keys set, PROXY_ADMIN_KEY too) and open /ui.",
    });
    // Every path it names is served.
    for (const path of ["/openapi.json", "/healthz", "/readyz", "/v1/models"])
      expect((await fetch(`${url}${path}`)).status, path).toBe(200);
    expect(gatewayIndex(url, { inspector: true }).inspector).toBe("/ui");
  });

  it.each(["/ui", "/ui/requests"])("GET %s with the inspector off says how to turn it on", async (path) => {
    const res = await fetch(`${url}${path}`);
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({
      error: { code: "inspector_off", message: expect.stringContaining("PROXY_INSPECTOR=on") },
    });
  });

  it("/openapi.json describes the four surfaces, native tool mode the default, each with its error shape", async () => {
    const doc = (await (await fetch(`${url}/openapi.json`)).json()) as {
      info: { description: string };
      paths: Record<
        string,
        Record<string, { tags?: string[]; responses: Record<string, { content?: unknown }> }>
      >;
    };
    for (const surface of ["Chat Completions", "Responses", "Anthropic Messages", "Gemini `generateContent`"])
      expect(doc.info.description).toContain(surface);
    expect(doc.info.description).toMatch(/native tool mode, `PROXY_TOOL_MODE=auto`/);
    const errorRef = (path: string, method: string) =>
      JSON.stringify(doc.paths[path]?.[method]?.responses["400"]?.content).match(/schemas\/(\w+)/)?.[1];
    expect(errorRef("/v1/chat/completions", "post")).toBe("Error");
    expect(errorRef("/v1/responses", "post")).toBe("Error");
    expect(errorRef("/v1/messages", "post")).toBe("AnthropicError");
    expect(errorRef("/v1beta/models/{model}:generateContent", "post")).toBe("GoogleError");
    expect(doc.paths["/v1/messages"]?.post?.tags).toEqual(["messages"]);
    expect(doc.paths["/"]?.get).toBeDefined();
  });
});
