import * as api from "@opentelemetry/api";
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { GatewayError } from "@proxy/core";
import { createTelemetry, type TurnSummary } from "@proxy/core/gateway";
import { describe, expect, it } from "vitest";
import { SPAN_LIMITS } from "../../src/observability/tracing.js";
import { writeTurnSpans } from "../../src/observability/turn-spans.js";

describe("a turn's spans, whatever its summary holds", () => {
  it("cut names and attributes, and give a failure's kind and code as its status, never its message", async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new TracerProvider({
      spanLimits: SPAN_LIMITS,
      spanProcessors: [new SimpleSpanProcessor({ exporter })],
    });
    // An embedder's surface may not bound the model name; an error may quote the prompt.
    const model = "x".repeat(1_000_000);
    const summary: TurnSummary = {
      api: "chat",
      model,
      stream: true,
      outputMode: "openai-json",
      telemetry: { ...createTelemetry([]), calledTools: Array.from({ length: 100 }, (_, i) => `t${i}`) },
      error: new GatewayError("backend_error", `the upstream said no to '${"prompt ".repeat(1000)}'`, {
        code: "upstream_rejected",
      }),
      timings: { arrivedAt: Date.now(), decodedMs: 1, acceptedMs: 2, endedMs: 5 },
      ttfbMs: 3,
    };
    writeTurnSpans(api, provider.getTracer("t"), summary, "route");
    await provider.forceFlush();
    const spans = exporter.getFinishedSpans();
    expect(spans.length).toBeGreaterThan(3);
    for (const span of spans) {
      expect(span.name.length).toBeLessThanOrEqual(300);
      if (span.status.code === api.SpanStatusCode.ERROR)
        expect(span.status.message).toBe("backend_error: upstream_rejected");
      for (const value of Object.values(span.attributes))
        for (const text of Array.isArray(value) ? value : [value])
          if (typeof text === "string") expect(text.length).toBeLessThanOrEqual(256);
    }
    const root = spans.find((s) => s.parentSpanContext === undefined);
    expect(root?.attributes["gen_ai.tool.name"]).toHaveLength(32);
    await provider.shutdown();
  });
});
