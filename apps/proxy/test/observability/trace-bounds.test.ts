import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { GatewayError } from "@proxy/core";
import type { Script } from "@proxy/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningGateway } from "../../src/gateway.js";
import { warmTokenizer } from "../support/process-probes.js";
import { gatewayWith } from "../usage/support.js";

const SECRET_PROMPT = "the-secret-prompt-91c4";
/** The longest names a client may send: a tool name of 64 characters, a model name of 256. */
const TOOL = `tool_${"n".repeat(59)}`;
const MODEL = "m".repeat(256);
const CALLS = 32;

const script: Script = (request) => {
  const input = JSON.stringify(request.input);
  if (input.includes("fail"))
    // An upstream 400 that quotes the prompt back, as many model servers do.
    return {
      chunks: [],
      startError: new GatewayError("invalid_request", `upstream refused the prompt '${SECRET_PROMPT}'`, {
        code: "upstream_rejected",
      }),
    };
  const call = `<tool_call>${JSON.stringify({ name: TOOL, arguments: "{}" })}</tool_call>`;
  return {
    chunks: Array.from({ length: CALLS }, () => call),
    usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
  };
};

const chat = (url: string, content: string, model = MODEL) =>
  fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      model,
      messages: [{ role: "user", content }],
      tools: [{ type: "function", function: { name: TOOL, parameters: { type: "object" } } }],
    }),
  }).then(async (res) => {
    await res.arrayBuffer();
    return res.status;
  });

/** An OTLP/HTTP collector answering success, or (`answer: false`) taking requests and never answering. */
const startCollector = async (answer: boolean) => {
  const bodies: string[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (!answer) return;
      bodies.push(Buffer.concat(chunks).toString());
      res.writeHead(200, { "content-type": "application/json" });
      res.end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    bodies,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};

const traced = (collector: string) =>
  gatewayWith(script, {
    PROXY_STORE: "none",
    PROXY_TOOL_MODE: "prompt",
    OTEL_EXPORTER_OTLP_ENDPOINT: collector,
    OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
  });

interface JsonSpan {
  name: string;
  attributes: Array<{
    key: string;
    value: { stringValue?: string; arrayValue?: { values?: Array<{ stringValue?: string }> } };
  }>;
  status?: { code?: number; message?: string };
}
const spansOf = (bodies: ReadonlyArray<string>): JsonSpan[] =>
  bodies.flatMap((body) =>
    (
      JSON.parse(body) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: JsonSpan[] }> }> }
    ).resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans)),
  );

describe("traces stay bounded whatever the request holds", { timeout: 120_000 }, () => {
  it("a failed turn's spans carry the error's kind and code, never its message", async () => {
    const collector = await startCollector(true);
    const gateway = await traced(collector.url);
    expect(await chat(gateway.url, `please fail ${SECRET_PROMPT}`)).toBe(400);
    await gateway.shutdown("test done");
    await collector.close();
    expect(collector.bodies.join("")).not.toContain(SECRET_PROMPT);
    const failed = spansOf(collector.bodies).filter((s) => s.status?.code === 2);
    expect(failed.length).toBeGreaterThan(0);
    for (const span of failed) expect(span.status?.message).toBe("invalid_request: upstream_rejected");
  });

  it("a model name of 100,000 characters reaches no span; one of 256 is carried whole", async () => {
    const collector = await startCollector(true);
    const gateway = await traced(collector.url);
    expect(await chat(gateway.url, "call it", "x".repeat(100_000))).toBe(400);
    expect(await chat(gateway.url, "call it")).toBe(200);
    await gateway.shutdown("test done");
    await collector.close();
    const spans = spansOf(collector.bodies);
    expect(spans.filter((s) => s.name === `chat ${MODEL}`)).toHaveLength(1);
    expect(spans.filter((s) => s.name === `tool_call ${TOOL}`)).toHaveLength(1);
    for (const span of spans) {
      expect(span.name.length, span.name.slice(0, 80)).toBeLessThanOrEqual(300);
      for (const { value } of span.attributes)
        for (const text of [value.stringValue, ...(value.arrayValue?.values ?? []).map((v) => v.stringValue)])
          expect((text ?? "").length).toBeLessThanOrEqual(256);
    }
    // Two requests' traces, the largest names clients may send: a few tens of kilobytes.
    expect(collector.bodies.join("").length).toBeLessThan(128 * 1024);
  });

  describe("with a collector that never answers", () => {
    let collector: Awaited<ReturnType<typeof startCollector>>;
    let gateway: RunningGateway;
    beforeAll(async () => {
      collector = await startCollector(false);
      gateway = await traced(collector.url);
    });
    afterAll(async () => {
      await gateway?.shutdown("test done");
      await collector?.close();
    });

    it("keeps what it cannot send bounded in memory", async () => {
      setFlagsFromString("--expose-gc");
      const gc = runInNewContext("gc") as () => void;
      const heap = () => {
        gc();
        gc();
        return process.memoryUsage().heapUsed;
      };
      const batch = async (n: number) => {
        for (let i = 0; i < n; i++) expect(await chat(gateway.url, "call it")).toBe(200);
      };
      await batch(5);
      await warmTokenizer(gateway.url);
      const start = heap();
      // Model names of 4.5 MB: each was a trace of that size, kept while the collector is silent.
      const huge = "q".repeat(4_500_000);
      for (let i = 0; i < 20; i++) await chat(gateway.url, "call it", `${huge}${i}`);
      const afterHuge = heap();
      // The largest names a client may send, seven spans a request, none of them sent.
      await batch(100);
      const after = heap();
      const mb = (bytes: number) => bytes / (1024 * 1024);
      expect(mb(afterHuge - start)).toBeLessThan(8);
      expect(mb(after - start)).toBeLessThan(16);
    });
  });
});
