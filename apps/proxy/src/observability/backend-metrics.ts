import type { PlanLimits } from "@proxy/core/gateway";
import { Counter, Gauge, type Registry } from "prom-client";

/** The backend's state as its readiness reports it (per route with `models`), and codex's RPCs. */
export const createBackendMetrics = (registry: Registry) => {
  const rpc = new Counter({
    name: "proxy_codex_rpc_requests_total",
    help: "JSON-RPC requests to codex app-servers, by method and outcome (ok, error code, timeout, aborted, closed).",
    labelNames: ["method", "outcome"] as const,
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

  return {
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
