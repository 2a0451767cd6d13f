import { Registry } from "prom-client";
import { createBackendMetrics } from "./backend-metrics.js";
import { createHttpMetrics } from "./http-metrics.js";
import { createTurnMetrics } from "./turn-metrics.js";

/**
 * The gateway's Prometheus metrics, one concern per file. One registry per gateway instance (never
 * prom-client's global), so tests can run many.
 */
export const createMetrics = () => {
  const registry = new Registry();
  return {
    registry,
    ...createHttpMetrics(registry),
    ...createTurnMetrics(registry),
    ...createBackendMetrics(registry),
  };
};

export type Metrics = ReturnType<typeof createMetrics>;
