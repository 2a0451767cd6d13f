import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startE2E } from "./e2e-gateway.js";
import { searchingModel } from "./hosted-search-support.js";
import { startUpstreamGateway } from "./upstream-gateway.js";

const KEY = "sk-e2e-refusals";

/** One request per surface asking for its hosted search, and where that surface says the error is. */
const asks = (model: string) => [
  {
    surface: "responses",
    path: "/v1/responses",
    body: { model, input: "hi", tools: [{ type: "function", name: "f" }, { type: "web_search_preview" }] },
    tool: "web_search_preview",
    param: "tools[1]",
  },
  {
    surface: "messages",
    path: "/v1/messages",
    body: {
      model,
      max_tokens: 64,
      messages: [{ role: "user", content: "hi" }],
      tools: [{ type: "web_search_20250305", name: "web_search", max_uses: 2 }],
    },
    tool: "web_search_20250305",
    param: "tools[0]",
  },
  {
    surface: "gemini",
    path: `/v1beta/models/${model}:generateContent`,
    body: { contents: [{ role: "user", parts: [{ text: "hi" }] }], tools: [{ googleSearch: {} }] },
    tool: "googleSearch",
    param: "tools[0].googleSearch",
  },
  {
    surface: "chat",
    path: "/v1/chat/completions",
    body: { model, messages: [{ role: "user", content: "hi" }], web_search_options: {} },
    tool: "web_search_options",
    param: "web_search_options",
  },
];

const post = async (url: string, path: string, body: unknown) => {
  const res = await fetch(`${url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${KEY}`, "x-goog-api-key": KEY },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, Record<string, unknown>> };
};

/** The error as each surface words it: OpenAI's `error.param/code`, Anthropic's `error.type`, Google's `error.status`. */
const expectRefusal = (
  surface: string,
  got: { status: number; body: Record<string, Record<string, unknown>> },
  code: string,
  tool: string,
  param: string,
) => {
  expect(got.status, JSON.stringify(got.body)).toBe(400);
  const error = got.body.error ?? {};
  expect(String(error.message)).toContain(tool);
  if (surface === "messages")
    expect(got.body).toMatchObject({ type: "error", error: { type: "invalid_request_error" } });
  else if (surface === "gemini") expect(error).toMatchObject({ code: 400, status: "INVALID_ARGUMENT" });
  else expect(error).toMatchObject({ type: "invalid_request_error", code, param });
};

describe("hosted search turned off (PROXY_HOSTED_WEB_SEARCH=false): a 400 naming the tool, never a silent drop", {
  timeout: 60_000,
}, () => {
  let e2e: Awaited<ReturnType<typeof startE2E>>;
  beforeAll(async () => {
    e2e = await startE2E(searchingModel, { PROXY_HOSTED_WEB_SEARCH: "false", PROXY_API_KEYS: KEY });
  }, 60_000);
  afterAll(() => e2e?.close());

  for (const ask of asks("e2e-model"))
    it(`${ask.surface}: hosted_tool_disabled, and the model was never asked`, async () => {
      const before = e2e.provider.requests.length;
      expectRefusal(
        ask.surface,
        await post(e2e.url, ask.path, ask.body),
        "hosted_tool_disabled",
        ask.tool,
        ask.param,
      );
      expect(e2e.provider.requests.length).toBe(before);
    });

  it("a request without the hosted tool still runs", async () => {
    const got = await post(e2e.url, "/v1/chat/completions", {
      model: "m",
      messages: [{ role: "user", content: "hi" }],
    });
    expect(got.status).toBe(200);
  });
});

describe("hosted search on an OpenAI-compatible route: hosted_tool_unsupported in each surface's shape", {
  timeout: 60_000,
}, () => {
  let e2e: Awaited<ReturnType<typeof startUpstreamGateway>>;
  beforeAll(async () => {
    e2e = await startUpstreamGateway(
      [() => ({ text: "from the local model" })],
      ([url]) => [{ id: "local", backend: "openai-compatible", baseUrl: url }],
      { PROXY_API_KEYS: KEY },
    );
  }, 60_000);
  afterAll(() => e2e?.close());

  for (const ask of asks("local"))
    it(`${ask.surface}: refused before the upstream is asked`, async () => {
      const before = e2e.upstreams[0]?.requests.length ?? 0;
      expectRefusal(
        ask.surface,
        await post(e2e.url, ask.path, ask.body),
        "hosted_tool_unsupported",
        ask.tool,
        ask.param,
      );
      expect(e2e.upstreams[0]?.requests.length ?? 0).toBe(before);
    });
});
