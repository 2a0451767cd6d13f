/**
 * What a trace costs per request when tracing is on: writing a turn's spans from its summary
 * (export is batched in the background). Off, nothing is loaded and nothing runs.
 * Run: pnpm --filter @proxy/gateway exec tsx --conditions=@proxy/source test/observability/bench-tracing.ts
 */
import { GatewayError } from "@proxy/core";
import { createTelemetry, type TurnSummary } from "@proxy/core/gateway";
import { pino } from "pino";
import { resolveConfig } from "../../src/config/config.js";
import { startTracing } from "../../src/observability/tracing.js";

const config = resolveConfig({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9" } });
const tracer = await startTracing(config, pino({ level: "silent" }));
if (tracer === undefined) throw new Error("tracing did not start");
const telemetry = {
  ...createTelemetry(["get_weather"]),
  callsEmitted: 2,
  calledTools: ["get_weather", "get_weather"],
};
const summary = (i: number): TurnSummary => ({
  api: "chat",
  model: "gpt-5.5",
  stream: true,
  outputMode: "openai-json",
  telemetry: {
    ...telemetry,
    route: "codex",
    usage: { inputTokens: 100, outputTokens: 10, totalTokens: 110 },
  },
  finish: i % 10 === 0 ? undefined : "tool_calls",
  error: i % 10 === 0 ? new GatewayError("timeout", "slow") : undefined,
  ttfbMs: 40,
  caller: { owner: "abc", name: "alice" },
  timings: { arrivedAt: Date.now(), decodedMs: 1, acceptedMs: 30, endedMs: 90 },
});
const N = 20_000;
for (let i = 0; i < 1000; i++) tracer.onTurnEnd(summary(i));
const t0 = performance.now();
for (let i = 0; i < N; i++) tracer.onTurnEnd(summary(i));
const perTurn = ((performance.now() - t0) / N) * 1000;
console.log(
  `spans written per request: ${perTurn.toFixed(1)} µs (7-8 spans, batch export in the background)`,
);
process.exit(0);
