import type { PlanLimits, TurnSummary } from "@proxy/core";
import { Counter, Gauge, Histogram, Registry } from "prom-client";

const MAX_TOOL_LABELS = 100;
const OTHER_TOOLS = "_other";

/** One registry per gateway instance (never prom-client's global), so tests can run many. */
export const createMetrics = () => {
  const registry = new Registry();
  const requests = new Counter({
    name: "proxy_http_requests_total",
    help: "HTTP requests by route and status.",
    labelNames: ["route", "method", "status"] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: "proxy_http_request_duration_seconds",
    help: "Time from request to response end.",
    labelNames: ["route"] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
    registers: [registry],
  });
  const ttfb = new Histogram({
    name: "proxy_time_to_first_byte_seconds",
    help: "Time from request to the first response byte.",
    labelNames: ["route"] as const,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const toolCalls = new Counter({
    name: "proxy_tool_calls_emitted_total",
    help: "Tool calls emitted to clients.",
    labelNames: ["api"] as const,
    registers: [registry],
  });
  const parseFailures = new Counter({
    name: "proxy_tool_parse_failures_total",
    help: "Sentinel blocks that could not be parsed.",
    registers: [registry],
  });
  const strictFailures = new Counter({
    name: "proxy_tool_strict_failures_total",
    help: "Strict tool calls that failed validation.",
    registers: [registry],
  });
  const retries = new Counter({
    name: "proxy_corrective_retries_total",
    help: "Corrective backend turns.",
    registers: [registry],
  });
  const failuresAfterCalls = new Counter({
    name: "proxy_backend_failures_after_tool_calls_total",
    help: "Backend failures after every streamed tool call was complete (the turn finished with the calls).",
    labelNames: ["api", "kind"] as const,
    registers: [registry],
  });
  const toolCallsByName = new Counter({
    name: "proxy_tool_calls_by_name_total",
    help: `Tool calls emitted, by tool name (the first ${MAX_TOOL_LABELS} names seen; later ones count as "${OTHER_TOOLS}").`,
    labelNames: ["tool"] as const,
    registers: [registry],
  });
  const toolWarnings = new Counter({
    name: "proxy_tool_call_warnings_total",
    help: "Calls accepted with a caveat: JSON repaired, or a soft schema mismatch tolerated.",
    labelNames: ["kind"] as const,
    registers: [registry],
  });
  const rpc = new Counter({
    name: "proxy_codex_rpc_requests_total",
    help: "JSON-RPC requests to codex app-servers, by method and outcome (ok, error code, timeout, aborted, closed).",
    labelNames: ["method", "outcome"] as const,
    registers: [registry],
  });
  const turns = new Counter({
    name: "proxy_turns_total",
    help: "Turns by API and outcome.",
    labelNames: ["api", "outcome"] as const,
    registers: [registry],
  });
  const backendRestarts = new Gauge({
    name: "proxy_backend_restarts",
    help: "Backend process restarts since start.",
    labelNames: ["route"] as const,
    registers: [registry],
  });
  const inFlight = new Gauge({
    name: "proxy_backend_in_flight_turns",
    help: "Backend turns running now.",
    labelNames: ["route"] as const,
    registers: [registry],
  });
  const queueDepth = new Gauge({
    name: "proxy_backend_queue_depth",
    help: "Turns waiting for a backend slot.",
    labelNames: ["route"] as const,
    registers: [registry],
  });
  const pendingToolRequests = new Gauge({
    name: "proxy_codex_pending_tool_requests",
    help: "Native turns: codex requests for tool results held open now (returns to 0 when turns end).",
    labelNames: ["route"] as const,
    registers: [registry],
  });
  const liveThreads = new Gauge({
    name: "proxy_codex_live_threads",
    help: "Codex threads kept alive now to continue their conversation (conversation continuity).",
    labelNames: ["route"] as const,
    registers: [registry],
  });
  const planUsed = new Gauge({
    name: "proxy_codex_plan_used_percent",
    help: "The codex plan's usage window, last known: percent used (window: primary, secondary).",
    labelNames: ["route", "window"] as const,
    registers: [registry],
  });
  const planWindow = new Gauge({
    name: "proxy_codex_plan_window_minutes",
    help: "The codex plan's usage window, last known: its length in minutes.",
    labelNames: ["route", "window"] as const,
    registers: [registry],
  });
  const planResetsAt = new Gauge({
    name: "proxy_codex_plan_resets_at_seconds",
    help: "The codex plan's usage window, last known: when it resets (unix seconds).",
    labelNames: ["route", "window"] as const,
    registers: [registry],
  });
  /** One window's gauges, set while it is known and removed once it is not. */
  const observePlan = (limits: PlanLimits | undefined, route: string | undefined) => {
    for (const window of ["primary", "secondary"] as const) {
      const labels = route === undefined ? { window } : { route, window };
      const w = limits?.[window];
      for (const [gauge, value] of [
        [planUsed, w?.usedPercent],
        [planWindow, w?.windowMinutes],
        [planResetsAt, w?.resetsAt],
      ] as const) {
        if (value === undefined) gauge.remove(labels);
        else gauge.set(labels, value);
      }
    }
  };

  // Tool names come from clients: bound the label set so /metrics cannot grow without limit.
  const toolLabels = new Set<string>();
  const toolLabel = (name: string): string => {
    if (toolLabels.has(name)) return name;
    if (toolLabels.size >= MAX_TOOL_LABELS) return OTHER_TOOLS;
    toolLabels.add(name);
    return name;
  };

  return {
    registry,
    observeRequest(route: string, method: string, status: number, seconds: number, ttfbSeconds?: number) {
      requests.inc({ route, method, status: String(status) });
      latency.observe({ route }, seconds);
      if (ttfbSeconds !== undefined) ttfb.observe({ route }, ttfbSeconds);
    },
    observeTurn(summary: TurnSummary) {
      const t = summary.telemetry;
      if (t.callsEmitted > 0) toolCalls.inc({ api: summary.api }, t.callsEmitted);
      if (t.parseFailures > 0) parseFailures.inc(t.parseFailures);
      if (t.strictFailures > 0) strictFailures.inc(t.strictFailures);
      if (t.retries > 0) retries.inc(t.retries);
      for (const name of t.calledTools) toolCallsByName.inc({ tool: toolLabel(name) });
      // Counted from the exact counters: the warnings list kept for the log line is capped.
      if (t.repairs > 0) toolWarnings.inc({ kind: "json-repaired" }, t.repairs);
      if (t.schemaWarnings > 0) toolWarnings.inc({ kind: "soft-schema" }, t.schemaWarnings);
      if (t.failureAfterCalls !== undefined)
        failuresAfterCalls.inc({ api: summary.api, kind: t.failureAfterCalls.kind });
      turns.inc({
        api: summary.api,
        outcome: summary.error ? summary.error.kind : (summary.finish ?? "unknown"),
      });
    },
    observeRpc(method: string, outcome: string) {
      rpc.inc({ method, outcome });
    },
    /** Without `route` (a single backend) the series stay unlabelled, as before routing existed. */
    observeBackend(
      readiness: {
        inFlight: number;
        queued: number;
        restarts: number;
        pendingToolRequests?: number | undefined;
        liveThreads?: number | undefined;
        planLimits?: PlanLimits | undefined;
      },
      route?: string,
    ) {
      observePlan(readiness.planLimits, route);
      const labels = route === undefined ? {} : { route };
      pendingToolRequests.set(labels, readiness.pendingToolRequests ?? 0);
      // Only a backend that keeps threads (codex) has the series.
      if (readiness.liveThreads === undefined) liveThreads.remove(labels);
      else liveThreads.set(labels, readiness.liveThreads);
      inFlight.set(labels, readiness.inFlight);
      queueDepth.set(labels, readiness.queued);
      backendRestarts.set(labels, readiness.restarts);
    },
  };
};

export type Metrics = ReturnType<typeof createMetrics>;
