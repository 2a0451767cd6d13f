import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMetrics } from "../../src/observability/metrics.js";
import { lastUserText, type RecordedRequest, startE2E, toolCallText } from "./e2e-gateway.js";

/** The scripted model: a clean call, a call needing JSON repair, a call breaking a soft schema. */
const model = (request: RecordedRequest) => {
  const input = lastUserText(request);
  if (input.includes("repair"))
    // Unescaped inner quotes: the repair adds their escapes (a trailing comma would be no call).
    return {
      text: '<tool_call>{"name":"get_weather","arguments":{"city":"Paris "the city" of light"}}</tool_call>',
    };
  if (input.includes("soft")) return { text: toolCallText("get_weather", { city: 42 }) };
  return { text: toolCallText("get_weather", { city: "Paris" }) };
};

const parameters = { type: "object", properties: { city: { type: "string" } }, required: ["city"] };
const chatTools = [{ type: "function" as const, function: { name: "get_weather", parameters } }];
const responsesTools = [{ type: "function" as const, name: "get_weather", parameters, strict: false }];

describe("operator visibility at the wire (real codex app-server)", { timeout: 60_000 }, () => {
  let e2e: Awaited<ReturnType<typeof startE2E>>;
  let client: OpenAI;
  beforeAll(async () => {
    e2e = await startE2E(model);
    client = new OpenAI({ baseURL: `${e2e.url}/v1`, apiKey: "sk-e2e", maxRetries: 0 });
  }, 60_000);
  afterAll(() => e2e?.close());

  const post = (path: string, body: object, requestId: string) =>
    fetch(`${e2e.url}/v1${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-request-id": requestId },
      body: JSON.stringify({ model: "m", ...body }),
    });

  it("/v1/responses carries the same per-request headers as chat", async () => {
    const res = await post("/responses", { input: "weather?", tools: responsesTools }, "ops-headers");
    expect(res.status).toBe(200);
    expect(res.headers.get("x-proxy-tool-call-count")).toBe("1");
    expect(res.headers.get("x-proxy-tool-call-truncated")).toBe("false");
    expect(res.headers.get("x-proxy-stop-after-tools-mode")).toBe("burst");
    expect(res.headers.get("x-proxy-output-mode")).toBe("openai-json");
    const streamed = await post(
      "/responses",
      { input: "weather?", tools: responsesTools, stream: true },
      "s",
    );
    expect(streamed.headers.get("x-proxy-stop-after-tools-mode")).toBe("burst");
    await streamed.text();
  });

  it("JSON repairs and soft-schema warnings are logged with the request id and counted", async () => {
    const repaired = await post(
      "/chat/completions",
      { messages: [{ role: "user", content: "repair" }], tools: chatTools },
      "ops-repair",
    );
    expect(repaired.status).toBe(200);
    const soft = await post(
      "/chat/completions",
      { messages: [{ role: "user", content: "soft" }], tools: chatTools },
      "ops-soft",
    );
    expect(soft.status).toBe(200);
    const warned = (id: string) =>
      e2e.logs.find((l) => l.msg === "tool calls accepted with warnings" && l.requestId === id);
    expect(warned("ops-repair")).toMatchObject({
      repairs: 1,
      warnings: [{ tool: "get_weather", kind: "json-repaired" }],
    });
    expect(warned("ops-soft")).toMatchObject({
      schemaWarnings: 1,
      warnings: [{ tool: "get_weather", kind: "soft-schema", detail: expect.stringMatching(/./) }],
    });
    const metrics = await (await fetch(`${e2e.url}/metrics`)).text();
    expect(metrics).toMatch(/proxy_tool_call_warnings_total\{kind="json-repaired"\} 1/);
    expect(metrics).toMatch(/proxy_tool_call_warnings_total\{kind="soft-schema"\} 1/);
  });

  it("/metrics: tool calls by name, codex JSON-RPC requests by method and outcome, restarts", async () => {
    await client.chat.completions.create({
      model: "m",
      messages: [{ role: "user", content: "hi" }],
      tools: chatTools,
    });
    const metrics = await (await fetch(`${e2e.url}/metrics`)).text();
    expect(metrics).toMatch(/proxy_tool_calls_by_name_total\{tool="get_weather"\} [1-9]/);
    expect(metrics).toMatch(/proxy_codex_rpc_requests_total\{method="thread\/start",outcome="ok"\} [1-9]/);
    expect(metrics).toMatch(/proxy_codex_rpc_requests_total\{method="turn\/start",outcome="ok"\} [1-9]/);
    expect(metrics).toMatch(/proxy_codex_rpc_requests_total\{method="initialize",outcome="ok"\} 1/);
    expect(metrics).toMatch(/proxy_backend_restarts 0/);
  });

  it("tool-name labels are bounded: names beyond the first 100 count as _other", async () => {
    const metrics = createMetrics();
    const telemetry = (name: string) => ({ callsEmitted: 1, calledTools: [name], toolWarnings: [] });
    for (let i = 0; i < 150; i++)
      metrics.observeTurn({ api: "chat", telemetry: telemetry(`tool_${i}`) } as never);
    const text = await metrics.registry.metrics();
    const labels = text.split("\n").filter((l) => l.startsWith("proxy_tool_calls_by_name_total{"));
    expect(labels).toHaveLength(101);
    expect(text).toMatch(/proxy_tool_calls_by_name_total\{tool="_other"\} 50/);
  });
});
