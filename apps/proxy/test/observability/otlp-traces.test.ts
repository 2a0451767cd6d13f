import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import type { Script } from "@proxy/core/testing";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gatewayWith } from "../usage/support.js";

const SECRET_PROMPT = "the-secret-prompt-7f3a";
const KEY = "sk-traced-0123456789";

const script: Script = (request) => ({
  chunks: JSON.stringify(request.input).includes("weather")
    ? `<tool_call>${JSON.stringify({ name: "get_weather", arguments: JSON.stringify({ city: "Oslo" }) })}</tool_call>`
    : "plain answer",
  usage: { inputTokens: 321, cachedInputTokens: 21, outputTokens: 12, totalTokens: 333 },
});

interface Received {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

/** A local OTLP/HTTP collector: records every export and answers success. */
const startReceiver = async () => {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({ path: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks) });
      const json = String(req.headers["content-type"]).includes("json");
      res.writeHead(200, { "content-type": json ? "application/json" : "application/x-protobuf" });
      res.end(json ? "{}" : undefined);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};

type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/** One traced gateway: two requests (a tool call, then a plain answer), then a shutdown that flushes. */
const traceRun = async (receiver: Receiver, protocol: string) => {
  const gateway = await gatewayWith(
    script,
    {
      PROXY_STORE: "none",
      PROXY_TOOL_MODE: "prompt",
      OTEL_EXPORTER_OTLP_ENDPOINT: `${receiver.url}/`,
      OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
      OTEL_SERVICE_NAME: `gateway-under-test-${protocol.replace("/", "-")}`,
      OTEL_EXPORTER_OTLP_HEADERS: "authorization=Bearer%20collector-token,x-tenant=t1",
    },
    { apiKeys: [{ name: "tracy", key: KEY }] },
  );
  const client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: KEY, maxRetries: 0 });
  await client.chat.completions.create({
    model: "m",
    messages: [{ role: "user", content: `weather in Oslo? ${SECRET_PROMPT}` }],
    tools: [{ type: "function", function: { name: "get_weather", parameters: { type: "object" } } }],
  });
  const stream = await client.chat.completions.create({
    model: "m",
    stream: true,
    messages: [{ role: "user", content: SECRET_PROMPT }],
  });
  for await (const _ of stream);
  await gateway.shutdown("test done");
};

interface JsonSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: Array<{ key: string; value: Record<string, unknown> }>;
}

const attribute = (span: JsonSpan, key: string) => {
  const value = span.attributes.find((a) => a.key === key)?.value;
  if (value === undefined) return undefined;
  if ("arrayValue" in value)
    return ((value.arrayValue as { values?: Array<{ stringValue?: string }> }).values ?? []).map(
      (v) => v.stringValue,
    );
  const first = Object.values(value)[0];
  return typeof first === "string" && /^\d+$/.test(first) && "intValue" in value ? Number(first) : first;
};

describe("OpenTelemetry traces", { timeout: 60_000 }, () => {
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(() => receiver?.close());

  it("http/json: one trace per request with the stage spans and GenAI attributes, no prompt text", async () => {
    const from = receiver.received.length;
    await traceRun(receiver, "http/json");
    const exports = receiver.received.slice(from);
    expect(exports.length).toBeGreaterThan(0);
    for (const e of exports) {
      expect(e.path).toBe("/v1/traces");
      expect(e.headers["content-type"]).toContain("application/json");
      expect(e.headers.authorization).toBe("Bearer collector-token");
      expect(e.headers["x-tenant"]).toBe("t1");
      expect(e.body.toString()).not.toContain(SECRET_PROMPT);
    }
    const resourceSpans = exports.flatMap(
      (e) =>
        (
          JSON.parse(e.body.toString()) as {
            resourceSpans: Array<{
              resource: { attributes: JsonSpan["attributes"] };
              scopeSpans: Array<{ spans: JsonSpan[] }>;
            }>;
          }
        ).resourceSpans,
    );
    const service = resourceSpans[0]?.resource.attributes.find((a) => a.key === "service.name")?.value;
    expect(service).toEqual({ stringValue: "gateway-under-test-http-json" });
    const spans = resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans));
    const roots = spans.filter((s) => s.parentSpanId === undefined || s.parentSpanId === "");
    expect(roots.map((r) => r.name)).toEqual(["chat m", "chat m"]);
    const [toolTurn, streamTurn] = roots as [JsonSpan, JsonSpan];
    expect(toolTurn.traceId).not.toBe(streamTurn.traceId);
    expect(attribute(toolTurn, "gen_ai.operation.name")).toBe("chat");
    expect(attribute(toolTurn, "gen_ai.request.model")).toBe("m");
    expect(attribute(toolTurn, "gen_ai.usage.input_tokens")).toBe(321);
    expect(attribute(toolTurn, "gen_ai.usage.output_tokens")).toBe(12);
    expect(attribute(toolTurn, "gen_ai.tool.name")).toEqual(["get_weather"]);
    expect(attribute(toolTurn, "proxy.tool_calls.count")).toBe(1);
    expect(attribute(toolTurn, "proxy.api_key.name")).toBe("tracy");
    const children = (root: JsonSpan) => spans.filter((s) => s.traceId === root.traceId && s !== root);
    expect(
      children(toolTurn)
        .map((s) => s.name)
        .sort(),
    ).toEqual(["admission", "backend turn", "decode", "encode", "parse", "tool_call get_weather"].sort());
    const backend = children(streamTurn).find((s) => s.name === "backend turn") as JsonSpan;
    expect(attribute(backend, "proxy.time_to_first_token_ms")).toBeTypeOf("number");
    // Stages sit inside the request's span.
    for (const child of children(streamTurn)) {
      expect(BigInt(child.startTimeUnixNano)).toBeGreaterThanOrEqual(BigInt(streamTurn.startTimeUnixNano));
      expect(BigInt(child.endTimeUnixNano)).toBeLessThanOrEqual(BigInt(streamTurn.endTimeUnixNano));
    }
  });

  it("http/protobuf: the same trace as protobuf, with the service name", async () => {
    const from = receiver.received.length;
    await traceRun(receiver, "http/protobuf");
    const exports = receiver.received.slice(from);
    expect(exports.length).toBeGreaterThan(0);
    const body = Buffer.concat(exports.map((e) => e.body));
    expect(exports[0]?.headers["content-type"]).toBe("application/x-protobuf");
    expect(exports[0]?.headers.authorization).toBe("Bearer collector-token");
    // Protobuf keeps strings as UTF-8 bytes: the names and keys are there, the prompt is not.
    for (const text of [
      "gateway-under-test-http-protobuf",
      "decode",
      "admission",
      "backend turn",
      "parse",
      "encode",
      "tool_call get_weather",
      "gen_ai.usage.input_tokens",
      "gen_ai.request.model",
    ])
      expect(body.includes(Buffer.from(text)), text).toBe(true);
    expect(body.includes(Buffer.from(SECRET_PROMPT))).toBe(false);
    expect(() => JSON.parse(body.toString())).toThrow();
  });
});
