import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import type { StoredStateOptions } from "@proxy/adapter-http-responses";
import { createCountingIdGenerator, type SchemaCache } from "@proxy/core";
import { DEFAULT_TURN_SETTINGS, fixedClock, type TextBackend, type TurnSettings } from "@proxy/core/gateway";
import { type Logger, pino } from "pino";
import { createBackendStack } from "../../src/backend/backend-stack.js";
import { createApp } from "../../src/create-app.js";
import { createRequestScope } from "../../src/http/request-context.js";
import { createMetrics } from "../../src/observability/metrics.js";

/** The real app (all middleware, both adapters) on a real loopback HTTP server over any backend. */
export const serveApp = async (
  inner: TextBackend,
  options: {
    readonly apiKeys?: string[];
    readonly corsOrigins?: string[];
    readonly bodyLimitBytes?: number;
    readonly aliases?: Record<string, string>;
    /** Serve as the gateway does with model routes (`claude-*` names are the router's to decide). */
    readonly routed?: boolean;
    readonly settings?: Partial<TurnSettings>;
    /** Decorate the backend (e.g. to log from inside a turn). */
    readonly wrap?: (backend: TextBackend, logger: Logger) => TextBackend;
    /** Stored responses and conversations (default: none, the stateless gateway). */
    readonly stored?: StoredStateOptions;
    /** The app's compiled-schema cache (default: its own). */
    readonly schemas?: SchemaCache;
  } = {},
) => {
  const lines: Array<Record<string, unknown>> = [];
  const scope = createRequestScope();
  const logger = pino(
    { level: "info", mixin: () => (scope.getStore() ? { requestId: scope.getStore()?.requestId } : {}) },
    { write: (line: string) => void lines.push(JSON.parse(line)) },
  );
  const stack = createBackendStack(
    { backend: options.wrap ? options.wrap(inner, logger) : inner },
    { aliases: options.aliases ?? {}, claudeOnDefault: options.routed !== true },
  );
  const app = createApp({
    ...stack,
    settings: { ...DEFAULT_TURN_SETTINGS, ...options.settings },
    logger,
    metrics: createMetrics(),
    apiKeys: options.apiKeys ?? [],
    corsOrigins: options.corsOrigins ?? [],
    bodyLimitBytes: options.bodyLimitBytes ?? 8 * 1024 * 1024,
    version: "test",
    scope,
    ids: createCountingIdGenerator(),
    clock: fixedClock(1_700_000_000_000),
    stored: options.stored,
    schemas: options.schemas,
  });
  const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" });
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    backend: stack.backend,
    control: stack.control,
    logs: lines,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};
