import { Counter, Histogram, type Registry } from "prom-client";

/** HTTP requests: count by route and status, duration, time to first byte. */
export const createHttpMetrics = (registry: Registry) => {
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
  return {
    observeRequest(route: string, method: string, status: number, seconds: number, ttfbSeconds?: number) {
      requests.inc({ route, method, status: String(status) });
      latency.observe({ route }, seconds);
      if (ttfbSeconds !== undefined) ttfb.observe({ route }, ttfbSeconds);
    },
  };
};
