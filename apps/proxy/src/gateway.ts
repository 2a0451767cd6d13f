import { createRequire } from "node:module";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import type { ServerType } from "@hono/node-server";
import { createImageFetcher } from "@proxy/adapter-image-fetcher";
import { createInspector, findUiDir } from "@proxy/inspector";
import { routeSettingsOf } from "@proxy/routing";
import * as Cause from "effect/Cause";
import * as Context from "effect/Context";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import * as Layer from "effect/Layer";
import * as Option from "effect/Option";
import * as Scope from "effect/Scope";
import { type BackendControl, createBackendStack } from "./backend/backend-stack.js";
import { statusView } from "./backend/gateway-backend.js";
import { NOT_LOGGED_IN } from "./backend/require-auth.js";
import { type GatewayConfig, turnSettingsFrom, type UnknownSetting } from "./config/config.js";
import { loadConfig } from "./config/load-config.js";
import { createApp } from "./create-app.js";
import { callerOf, keyMatcher } from "./http/auth.js";
import { createRequestScope } from "./http/request-context.js";
import { isLoopbackHost } from "./http/request-guard.js";
import { Listener } from "./listener.js";
import { Log, type Logger } from "./observability/logger.js";
import { createMetrics } from "./observability/metrics.js";
import { releaseStartupMemory } from "./observability/startup-memory.js";
import { Replicas } from "./replicas/replicas.js";
import { Backend, Tracing } from "./runtime.js";
import { GatewayStartError } from "./startup-problem.js";
import { State, type StateTimings } from "./state/gateway-state.js";
import { lazyO200kEncoding } from "./tokens/lazy-o200k.js";
import { Usage } from "./usage/usage-accounting.js";

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

/** How long after listening the tokenizer's tables load (see `tokenizerPreload`). */
const TOKENIZER_PRELOAD_MS = 1000;

/** What `startGateway` is told beside the configuration. */
export interface StartOptions {
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
}

/** The served gateway: the app on the listening socket, with its backend's control plane. */
interface Serving {
  readonly server: ServerType;
  readonly url: string;
  readonly control: BackendControl;
  readonly logger: Logger;
}

/**
 * The app over every resource, served on the listening socket. Its release is the drain: no new
 * connections, running turns finish within `shutdownGraceMs`, then the connections close; the
 * resources beneath it are released after it, in the layer graph's order.
 */
class Gateway extends Context.Service<Gateway, Serving>()("@proxy/gateway/Gateway") {
  static readonly make = (config: GatewayConfig, options: StartOptions, shared: Shared) =>
    Effect.gen(function* () {
      const listening = yield* Listener;
      const { logger } = yield* Log;
      const state = yield* State;
      const usage = yield* Usage;
      const { tracer } = yield* Tracing;
      const acquired = yield* Backend;
      const { sharing } = yield* Replicas;
      const { metrics, tokens, scope } = shared;
      const stack = createBackendStack(acquired, {
        aliases: config.modelAliases,
        keyLimits: usage.keyLimits,
        replicas: sharing,
        hostedWebSearch: config.hostedWebSearch,
      });
      const { backend, control } = stack;
      const app = createApp({
        stored: state.stored,
        turnObservers: tracer ? [usage.recorder, tracer] : [usage.recorder],
        admin: usage.admin,
        backend,
        control,
        internalTurn: sharing && stack.forwarded ? sharing.route(stack.forwarded) : undefined,
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
              notLoggedIn: NOT_LOGGED_IN,
              adminKey: config.adminKey,
              apiKeys: usage.keys.map((k) => k.key),
              keys: { matcher: keyMatcher, callerOf },
              uiDir: findUiDir(dirname(fileURLToPath(import.meta.url))),
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
      return yield* Effect.acquireRelease(
        Effect.sync(() => {
          // Last, so the backend's start-up garbage (codex's model catalog) goes too; nothing is served yet.
          if (options.releaseStartupMemory) releaseStartupMemory();
          const { server } = listening;
          listening.serve(app);
          const address = server.address();
          const port = typeof address === "object" && address ? address.port : config.port;
          const url = `http://${config.host.includes(":") ? `[${config.host}]` : config.host}:${port}`;
          logger.info({ url, backend: backend.name, outputMode: config.outputMode }, "gateway listening");
          // Loading the tokenizer's tables is a few hundred ms of synchronous work: done a moment after
          // the start, while nothing is in flight yet, not inside the first request that counts a
          // token (nor in the start itself, which it slowed by as much).
          const tokenizerPreload = setTimeout(tokens.load, TOKENIZER_PRELOAD_MS);
          tokenizerPreload.unref();
          return { serving: { server, url, control, logger }, tokenizerPreload };
        }),
        ({ serving: { server }, tokenizerPreload }) =>
          Effect.promise(async () => {
            clearTimeout(tokenizerPreload);
            const closed = new Promise<void>((resolve) => server.close(() => resolve()));
            await control.drain(config.shutdownGraceMs);
            if ("closeIdleConnections" in server) server.closeIdleConnections();
            await Promise.race([closed, new Promise((r) => setTimeout(r, 1000).unref())]);
            if ("closeAllConnections" in server) server.closeAllConnections();
          }),
      ).pipe(Effect.map(({ serving }) => serving));
    });
}

/** Plain values every layer may use (no lifecycle of their own). */
interface Shared {
  readonly metrics: ReturnType<typeof createMetrics>;
  readonly tokens: ReturnType<typeof lazyO200kEncoding>;
  readonly scope: ReturnType<typeof createRequestScope>;
}

/**
 * The gateway as one layer graph, the one place its resources are composed. Built in this order,
 * released in the reverse: the log; the listening socket (a port in use stops the start before
 * anything else starts); the store, tracing and the backend side by side (codex boots while the
 * store opens); the usage accounting over the store and, with replicas, their owners table beside
 * it; the app, served. A step that fails releases
 * what was acquired before it; a clean shutdown drains the app first and closes the log last.
 */
const gatewayLayer = (config: GatewayConfig, options: StartOptions, shared: Shared) => {
  const env = options.env ?? process.env;
  const log = options.logger
    ? Log.layerFrom(options.logger)
    : Log.layer(config.logLevel, { requestId: () => shared.scope.getStore()?.requestId });
  const warned = Layer.effectDiscard(
    Log.useSync(({ logger }) => {
      for (const w of options.warnings ?? []) logger.warn({ setting: w.name, meant: w.meant }, w.message);
    }),
  );
  const backend = Backend.starting(
    options.backendLayer ??
      Backend.layerConfigured(config, options.env, shared.metrics.observeRpc, shared.tokens),
    config,
    env,
  );
  const foundation = Listener.layer(config).pipe(Layer.provideMerge(warned.pipe(Layer.provideMerge(log))));
  const resources = Layer.mergeAll(
    State.layer(config, options.stateTimings),
    Tracing.layer(config),
    backend,
  ).pipe(Layer.provideMerge(foundation));
  const accounted = Layer.mergeAll(
    Usage.layer(config, shared.metrics.registry),
    Replicas.layer(config, shared.metrics.observeReplicaTurn),
  ).pipe(Layer.provideMerge(resources));
  return Layer.effect(Gateway, Gateway.make(config, options, shared)).pipe(Layer.provide(accounted));
};

/** The error a failed start ends with: the GatewayStartError of the step that failed. */
const startError = (cause: Cause.Cause<unknown>): unknown =>
  Option.getOrElse(Cause.findErrorOption(cause), () => Cause.squash(cause));

/**
 * Starts the gateway with the given backend layer (codex by default) and returns a handle. A start
 * that fails stops what it had started (codex, the store, the socket) and throws a
 * GatewayStartError whose message names the setting to fix.
 */
export const startGateway = async (
  config: GatewayConfig,
  options: StartOptions = {},
): Promise<RunningGateway> => {
  const shared: Shared = {
    metrics: createMetrics(),
    // One tokenizer for the surfaces and the upstream routes (its tables load once, after start).
    tokens: lazyO200kEncoding(),
    scope: createRequestScope(),
  };
  const scope = Scope.makeUnsafe();
  const built = await Effect.runPromiseExit(
    Layer.buildWithScope(gatewayLayer(config, options, shared), scope),
  );
  if (Exit.isFailure(built)) {
    await Effect.runPromise(Scope.close(scope, built));
    throw startError(built.cause);
  }
  const { server, url, control, logger } = Context.get(built.value, Gateway);
  let closing: Promise<void> | undefined;
  const shutdown = (reason: string) =>
    (closing ??= (async () => {
      logger.info({ reason, activeTurns: control.activeTurns() }, "shutting down: no new connections");
      await Effect.runPromise(Scope.close(scope, Exit.void));
    })());
  return { server, url, shutdown };
};

/** Process entry: config from env (+ optional file and CLI flags), signals, exit codes. */
export const main = async (flags: Readonly<Record<string, string>> = {}): Promise<void> => {
  // Every mistake a start can meet is one line on stderr and a non-zero exit, no stack trace.
  // A message may quote a tool's multi-line output (codex's stderr): kept, on the one line.
  const fail = (message: string, code: number): never => {
    const line = message
      .split(/\s*\n\s*/)
      .reduce(
        (out, part) =>
          part === "" ? out : out === "" || /^[:;,.)]/.test(part) ? out + part : `${out}; ${part}`,
        "",
      );
    process.stderr.write(`codex-tool-gateway: ${line}\n`);
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
