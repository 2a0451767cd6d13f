import { readFileSync } from "node:fs";
import type { Server } from "node:http";
import { createRequire } from "node:module";
import { type ServerType, serve } from "@hono/node-server";
import { DEFAULT_TURN_SETTINGS, type TurnSettings } from "@proxy/core";
import * as Effect from "effect/Effect";
import type * as Layer from "effect/Layer";
import * as ManagedRuntime from "effect/ManagedRuntime";
import { ConfigError, type GatewayConfig, resolveConfig } from "./config/config.js";
import { createApp } from "./create-app.js";
import { createRequestScope, routeReporter } from "./http/request-context.js";
import { isLoopbackHost } from "./http/request-guard.js";
import { guardServer, SERVER_OPTIONS } from "./http/server-guard.js";
import { createInspector } from "./inspector/inspector.js";
import { createImageFetcher } from "./media/image-fetcher.js";
import { type Logger, openLog } from "./observability/logger.js";
import { createMetrics } from "./observability/metrics.js";
import { releaseStartupMemory } from "./observability/startup-memory.js";
import { startTracing } from "./observability/tracing.js";
import { routeSettingsOf } from "./routing/route-config.js";
import { Backend } from "./runtime.js";
import { openGatewayState, type StateTimings } from "./state/gateway-state.js";
import { lazyO200kEncoding } from "./tokens/lazy-o200k.js";
import { openUsageAccounting } from "./usage/usage-accounting.js";

/** The package's own version (its package.json sits beside `src/` and `dist/` alike). */
export const VERSION: string = (createRequire(import.meta.url)("../package.json") as { version: string })
  .version;

export const turnSettingsFrom = (config: GatewayConfig): TurnSettings => ({
  ...DEFAULT_TURN_SETTINGS,
  outputMode: config.outputMode,
  toolMode: config.toolMode,
  stopAfterTools: config.stopAfterTools,
  stopAfterToolsMode: config.stopAfterToolsMode,
  toolBlockMax: config.toolBlockMax,
  parallelToolCalls: config.parallelToolCalls,
  maxBlockBytes: config.toolBlockMaxBytes,
  toolBlockDedup: config.toolBlockDedup,
  correctiveRetries: config.correctiveRetries,
  requestTimeoutMs: config.requestTimeoutMs,
  idleTimeoutMs: config.idleTimeoutMs,
});

export interface RunningGateway {
  readonly server: ServerType;
  readonly url: string;
  shutdown(reason: string): Promise<void>;
}

/** Starts the gateway with the given backend layer (codex by default) and returns a handle. */
export const startGateway = async (
  config: GatewayConfig,
  options: {
    readonly logger?: Logger;
    readonly backendLayer?: Layer.Layer<Backend>;
    /** Environment of the codex child (default: this process's, so CODEX_HOME applies). */
    readonly env?: NodeJS.ProcessEnv;
    /** Shorter leases and polls for tests of background turns. */
    readonly stateTimings?: StateTimings;
    /** Collect start-up garbage before listening (the process entry does; in-process tests need not). */
    readonly releaseStartupMemory?: boolean;
  } = {},
): Promise<RunningGateway> => {
  const scope = createRequestScope();
  const log = options.logger
    ? { logger: options.logger, written: () => Promise.resolve() }
    : openLog(config.logLevel, { requestId: () => scope.getStore()?.requestId });
  const { logger } = log;
  const metrics = createMetrics();
  // One tokenizer for the surfaces and the upstream routes: its tables load once, on the first count.
  const tokens = lazyO200kEncoding();
  const runtime = ManagedRuntime.make(
    options.backendLayer ??
      (config.models.length > 0
        ? Backend.layerRoutes(config, logger, options.env, metrics.observeRpc, routeReporter(scope), tokens)
        : Backend.layerCodex(config, logger, options.env, metrics.observeRpc, routeReporter(scope))),
  );
  // The backend starts first (codex: spawning and initializing its app-servers, which takes them
  // tens of ms of their own): the store opens and tracing starts while they boot.
  const acquiring = runtime.runPromise(
    Effect.gen(function* () {
      return yield* Backend;
    }),
  );
  const opened = await Promise.all([
    openGatewayState(config, logger, options.stateTimings),
    startTracing(config, logger),
  ]).catch(async (error: unknown) => {
    await acquiring.catch(() => undefined);
    await runtime.dispose();
    throw error;
  });
  const [state, tracer] = opened;
  const usage = openUsageAccounting(config, state.usage, metrics.registry, logger);
  const backend = usage.limit(
    await acquiring.catch(async (error: unknown) => {
      await usage.close();
      await tracer?.shutdown();
      await state.close();
      throw error;
    }),
  );
  const app = createApp({
    stored: state.stored,
    turnObservers: tracer ? [usage.recorder, tracer] : [usage.recorder],
    admin: usage.admin,
    backend,
    tokens,
    settings: turnSettingsFrom(config),
    routeSettings: routeSettingsOf(config.models),
    logger,
    metrics,
    apiKeys: usage.keys,
    corsOrigins: config.corsOrigins,
    bindHost: config.host,
    allowedHosts: config.allowedHosts,
    metricsAuth: config.metricsAuth,
    bodyLimitBytes: config.bodyLimitBytes,
    keepAliveMs: config.keepAliveMs,
    media: createImageFetcher({
      allow: config.imageFetchAllow,
      maxBytes: config.imageFetchMaxBytes,
      timeoutMs: config.imageFetchTimeoutMs,
      maxRedirects: config.imageFetchMaxRedirects,
      maxPerRequest: config.imageFetchMaxPerRequest,
      maxTotalBytes: config.imageFetchMaxTotalBytes,
      maxInFlight: config.imageFetchMaxInFlight,
    }),
    writeTimeoutMs: config.writeTimeoutMs,
    maxAnswerChars: config.maxAnswerChars,
    scope,
    version: VERSION,
    inspector: config.inspector
      ? createInspector({
          backend,
          adminKey: config.adminKey,
          apiKeys: usage.keys.map((k) => k.key),
          bodies: config.inspectorBodies,
          maxRequests: config.inspectorMaxRequests,
          maxBytes: config.inspectorMaxBytes,
          pool: { processes: config.codexPoolSize, warmThreads: config.codexWarmThreads },
        })
      : undefined,
  });
  if (config.apiKeys.length === 0 && !isLoopbackHost(config.host)) {
    logger.warn(
      { host: config.host },
      "!!! NO API KEYS: the gateway is open to anyone who can reach this address. Set PROXY_API_KEYS.",
    );
  }
  // Last, so the backend's start-up garbage (codex's model catalog) goes too; nothing is listening yet.
  if (options.releaseStartupMemory) releaseStartupMemory();
  const server = await new Promise<ServerType>((resolve) => {
    const s = serve(
      { fetch: app.fetch, port: config.port, hostname: config.host, serverOptions: SERVER_OPTIONS },
      () => resolve(s),
    );
  });
  guardServer(server as Server, { maxConnections: config.maxConnections });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : config.port;
  const url = `http://${config.host.includes(":") ? `[${config.host}]` : config.host}:${port}`;
  logger.info({ url, backend: backend.name, outputMode: config.outputMode }, "gateway listening");

  let closing: Promise<void> | undefined;
  const shutdown = (reason: string) =>
    (closing ??= (async () => {
      logger.info({ reason, activeTurns: backend.activeTurns() }, "shutting down: no new connections");
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      await backend.drain(config.shutdownGraceMs);
      if ("closeIdleConnections" in server) server.closeIdleConnections();
      await Promise.race([closed, new Promise((r) => setTimeout(r, 1000).unref())]);
      if ("closeAllConnections" in server) server.closeAllConnections();
      await runtime.dispose();
      await usage.close();
      await tracer?.shutdown();
      await state.close();
      logger.info("stopped");
      await log.written();
    })());
  return { server, url, shutdown };
};

/** Process entry: config from env (+ optional file and CLI flags), signals, exit codes. */
export const main = async (flags: Readonly<Record<string, string>> = {}): Promise<void> => {
  let config: GatewayConfig;
  try {
    const file = flags.configFile ?? process.env.PROXY_CONFIG_FILE;
    const fileValues = file ? (JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>) : undefined;
    config = resolveConfig({ env: process.env, flags, ...(fileValues ? { file: fileValues } : {}) });
  } catch (error) {
    process.stderr.write(
      `codex-tool-gateway: ${error instanceof ConfigError || error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exit(2);
  }
  const gateway = await startGateway(config, { releaseStartupMemory: true });
  // `on`, not `once`: a terminal's Ctrl-C reaches the gateway both directly and forwarded by the
  // processes that started it (npm, the bootstrap, pnpm); a repeat must not cut the drain short.
  for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) {
    process.on(signal, () => {
      void gateway.shutdown(signal).then(() => process.exit(0));
    });
  }
};
