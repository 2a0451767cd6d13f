import type { Server } from "node:http";
import { createRequire } from "node:module";
import { createAdaptorServer, type ServerType } from "@hono/node-server";
import * as Effect from "effect/Effect";
import type * as Layer from "effect/Layer";
import * as ManagedRuntime from "effect/ManagedRuntime";
import type { Hono } from "hono";
import { type AcquiredBackend, createBackendStack } from "./backend/backend-stack.js";
import { statusView } from "./backend/gateway-backend.js";
import { type GatewayConfig, turnSettingsFrom, type UnknownSetting } from "./config/config.js";
import { loadConfig } from "./config/load-config.js";
import { createApp } from "./create-app.js";
import { createRequestScope } from "./http/request-context.js";
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
import {
  backendProblem,
  GatewayStartError,
  listenProblem,
  storeProblem,
  tracingProblem,
} from "./startup-problem.js";
import { openGatewayState, type StateTimings } from "./state/gateway-state.js";
import { lazyO200kEncoding } from "./tokens/lazy-o200k.js";
import { openUsageAccounting } from "./usage/usage-accounting.js";

/** The package's own version (its package.json sits beside `src/` and `dist/` alike). */
export const VERSION: string = (createRequire(import.meta.url)("../package.json") as { version: string })
  .version;

/** The version of the codex CLI the gateway runs by default (its npm package), when it is installed. */
const bundledCodexVersion = (): string | undefined => {
  try {
    return (createRequire(import.meta.url)("@openai/codex/package.json") as { version: string }).version;
  } catch {
    return undefined;
  }
};

export interface RunningGateway {
  readonly server: ServerType;
  readonly url: string;
  shutdown(reason: string): Promise<void>;
}

/**
 * The listening socket, bound before anything else starts: a port in use ends the start before
 * codex or the store are started. Requests that arrive meanwhile wait for the app.
 */
const listen = async (config: GatewayConfig) => {
  let settle: { resolve(app: Hono): void; reject(reason: unknown): void } | undefined;
  const app = new Promise<Hono>((resolve, reject) => {
    settle = { resolve, reject };
  });
  app.catch(() => undefined);
  let fetch: Hono["fetch"] = (request, env) => app.then((a) => a.fetch(request, env));
  const server = createAdaptorServer({
    fetch: (request, env) => fetch(request, env),
    hostname: config.host,
    serverOptions: SERVER_OPTIONS,
  });
  guardServer(server as Server, { maxConnections: config.maxConnections });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(config.port, config.host, () => {
      server.off("error", reject);
      resolve();
    });
  }).catch((error: unknown) => {
    throw new GatewayStartError(listenProblem(error, config), { cause: error });
  });
  return {
    server,
    serve(a: Hono) {
      fetch = a.fetch;
      settle?.resolve(a);
    },
    /** A start that failed: requests waiting for it are dropped with their connections. */
    close: () => {
      settle?.reject(new Error("the gateway did not start"));
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      (server as Server).closeAllConnections();
      return closed;
    },
  };
};

/** The value of a start step, or a GatewayStartError saying what to fix. */
const settled = <T>(result: PromiseSettledResult<T>, problem: (error: unknown) => string): T => {
  if (result.status === "fulfilled") return result.value;
  throw new GatewayStartError(problem(result.reason), { cause: result.reason });
};

/** How long after listening the tokenizer's tables load (see `tokenizerPreload`). */
const TOKENIZER_PRELOAD_MS = 1000;

/**
 * Starts the gateway with the given backend layer (codex by default) and returns a handle. A start
 * that fails stops what it had started (codex, the store, the socket) and throws a
 * GatewayStartError whose message names the setting to fix.
 */
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
    /** Settings the configuration did not know (`PROXY_*` typos), logged as warnings. */
    readonly warnings?: ReadonlyArray<UnknownSetting>;
  } = {},
): Promise<RunningGateway> => {
  const listening = await listen(config);
  const scope = createRequestScope();
  const log = options.logger
    ? { logger: options.logger, written: () => Promise.resolve() }
    : openLog(config.logLevel, { requestId: () => scope.getStore()?.requestId });
  const { logger } = log;
  for (const w of options.warnings ?? []) logger.warn({ setting: w.name, meant: w.meant }, w.message);
  const metrics = createMetrics();
  // One tokenizer for the surfaces and the upstream routes (its tables load once, after start).
  const tokens = lazyO200kEncoding();
  const runtime = ManagedRuntime.make(
    options.backendLayer ??
      (config.models.length > 0
        ? Backend.layerRoutes(config, logger, options.env, metrics.observeRpc, tokens)
        : Backend.layerCodex(config, logger, options.env, metrics.observeRpc)),
  );
  // The backend starts first (codex: spawning and initializing its app-servers, which takes them
  // tens of ms of their own): the store opens and tracing starts while they boot. Each is waited
  // for, so a failed start stops all of them.
  const [opening, tracing, acquiring] = await Promise.allSettled([
    openGatewayState(config, logger, options.stateTimings),
    startTracing(config, logger),
    runtime.runPromise(
      Effect.gen(function* () {
        return yield* Backend;
      }),
    ),
  ]);
  let state: Awaited<ReturnType<typeof openGatewayState>>;
  let tracer: Awaited<ReturnType<typeof startTracing>>;
  let acquired: AcquiredBackend;
  try {
    state = settled(opening, (e) => storeProblem(e, config));
    tracer = settled(tracing, tracingProblem);
    acquired = settled(acquiring, (e) => backendProblem(e, config, options.env ?? process.env));
  } catch (error) {
    await runtime.dispose();
    if (tracing.status === "fulfilled") await tracing.value?.shutdown();
    if (opening.status === "fulfilled") await opening.value.close();
    await listening.close();
    await log.written();
    throw error;
  }
  const usage = openUsageAccounting(config, state.usage, metrics.registry, logger);
  const stack = createBackendStack(acquired, { aliases: config.modelAliases, keyLimits: usage.keyLimits });
  const { backend, control } = stack;
  const app = createApp({
    stored: state.stored,
    turnObservers: tracer ? [usage.recorder, tracer] : [usage.recorder],
    admin: usage.admin,
    backend,
    control,
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
          backend: statusView(stack),
          adminKey: config.adminKey,
          apiKeys: usage.keys.map((k) => k.key),
          bodies: config.inspectorBodies,
          maxRequests: config.inspectorMaxRequests,
          maxBytes: config.inspectorMaxBytes,
          pool: { processes: config.codexPoolSize, warmThreads: config.codexWarmThreads },
          versions: { gateway: VERSION, codex: config.codexBin ? undefined : bundledCodexVersion() },
        })
      : undefined,
  });
  if (config.apiKeys.length === 0 && !isLoopbackHost(config.host)) {
    logger.warn(
      { host: config.host },
      "!!! NO API KEYS: the gateway is open to anyone who can reach this address. Set PROXY_API_KEYS.",
    );
  }
  // Last, so the backend's start-up garbage (codex's model catalog) goes too; nothing is served yet.
  if (options.releaseStartupMemory) releaseStartupMemory();
  const { server } = listening;
  listening.serve(app);
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : config.port;
  const url = `http://${config.host.includes(":") ? `[${config.host}]` : config.host}:${port}`;
  logger.info({ url, backend: backend.name, outputMode: config.outputMode }, "gateway listening");
  // Loading the tokenizer's tables is a few hundred ms of synchronous work: done a moment after the
  // start, while nothing is in flight yet, not inside the first request that counts a token (nor in
  // the start itself, which it slowed by as much).
  const tokenizerPreload = setTimeout(tokens.load, TOKENIZER_PRELOAD_MS);
  tokenizerPreload.unref();

  let closing: Promise<void> | undefined;
  const shutdown = (reason: string) =>
    (closing ??= (async () => {
      clearTimeout(tokenizerPreload);
      logger.info({ reason, activeTurns: control.activeTurns() }, "shutting down: no new connections");
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      await control.drain(config.shutdownGraceMs);
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
  // Every mistake a start can meet is one line on stderr and a non-zero exit, no stack trace.
  const fail = (message: string, code: number): never => {
    process.stderr.write(`codex-tool-gateway: ${message}\n`);
    process.exit(code);
  };
  let loaded: ReturnType<typeof loadConfig>;
  try {
    loaded = loadConfig(process.env, flags);
  } catch (error) {
    return fail(error instanceof Error ? error.message : String(error), 2);
  }
  let gateway: RunningGateway;
  try {
    gateway = await startGateway(loaded.config, { releaseStartupMemory: true, warnings: loaded.warnings });
  } catch (error) {
    return fail(error instanceof GatewayStartError ? error.message : `could not start: ${String(error)}`, 1);
  }
  const stop = (reason: string) => void gateway.shutdown(reason).then(() => process.exit(0));
  // `on`, not `once`: a terminal's Ctrl-C reaches the gateway both directly and forwarded by the
  // processes that started it (npm, the bootstrap, pnpm); a repeat must not cut the drain short.
  for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) process.on(signal, () => stop(signal));
  if (process.env.npm_lifecycle_event !== undefined) stopWithParent(stop);
};

/**
 * Started by npm (`npx codex-tool-gateway`, an npm script), the gateway runs under the `sh -c` npm
 * spawns, and a SIGTERM sent to npm's pid kills that shell without reaching the gateway: the
 * parent going away is a stop too, or the gateway and codex would be left serving on the port.
 */
const stopWithParent = (stop: (reason: string) => void) => {
  const parent = process.ppid;
  const watch = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(watch);
    stop("the npm or npx process that started the gateway is gone");
  }, 500);
  watch.unref();
};
