import { createCodexBackend, resolveCodexCommand } from "@proxy/adapter-codex-appserver";
import type { TokenEncoding } from "@proxy/core";
import { type TextBackend, wrapBackend } from "@proxy/core/gateway";
import { createRouteStack, DEFAULT_CODEX_ROUTE } from "@proxy/routing";
import * as Context from "effect/Context";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import type * as Scope from "effect/Scope";
import type { AcquiredBackend } from "./backend/backend-stack.js";
import { requireBackendAuth } from "./backend/require-auth.js";
import type { GatewayConfig } from "./config/config.js";
import { Log, type Logger } from "./observability/logger.js";
import { startTracing, type TurnTracer } from "./observability/tracing.js";
import { startCause, startStep } from "./start-step.js";
import { backendProblem, tracingProblem } from "./startup-problem.js";
import { lazyO200kEncoding } from "./tokens/lazy-o200k.js";

/** Told how each JSON-RPC request to a codex app-server ended (for metrics). */
type RpcResultObserver = (method: string, outcome: string) => void;

import { type AcquiredCodex, acquireRoutes } from "./backend/routes-layer.js";

/** A sealed, supervised codex app-server pool and its login check, closed with the scope. */
const acquireCodex = (
  config: GatewayConfig,
  logger: Logger,
  env: NodeJS.ProcessEnv,
  onRpcResult?: RpcResultObserver,
) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const codex = createCodexBackend({
        ...(config.codexBin ? { codexBin: config.codexBin } : {}),
        poolSize: config.codexPoolSize,
        warmThreads: config.codexWarmThreads,
        continuity: config.codexContinuity,
        durableThreads: config.codexKeepEdits,
        liveThreads: config.codexLiveThreads,
        liveThreadIdleMs: config.codexLiveThreadIdleMs,
        liveThreadMaxChars: config.codexLiveThreadMaxChars,
        maxInFlight: config.maxInFlight,
        maxQueue: config.maxQueue,
        // A reader codex's output waits for is judged by the same time without progress as a stream.
        ...(config.writeTimeoutMs > 0 ? { stalledReaderMs: config.writeTimeoutMs } : {}),
        env,
        passEnv: config.codexPassEnv,
        logger: logger.child({ component: "codex" }),
        onRpcResult,
      });
      // A codex that cannot start stops the start: closed here, as the release never runs.
      await codex.warmup().catch(async (error: unknown) => {
        await codex.close();
        throw error;
      });
      const auth = await codex.checkAuth().catch((error: unknown) => ({
        authenticated: false,
        requiresOpenaiAuth: true,
        detail: String(error),
      }));
      if (!auth.authenticated && auth.requiresOpenaiAuth) {
        // The operator's copy names the exact binary this gateway runs (the client's names both installs).
        const bin = resolveCodexCommand(config.codexBin, env);
        const login = /\.[cm]?js$/.test(bin) ? `node ${bin} login` : `${bin} login`;
        logger.warn(
          { detail: auth.detail, codexHome: env.CODEX_HOME ?? "~/.codex" },
          `codex is not logged in: every request is refused until you run \`codex login\` as this user (${login}, same CODEX_HOME), or give codex a model provider in its config.toml`,
        );
      }
      return { codex, auth: requireBackendAuth(() => codex.checkAuth(), auth) };
    }),
    ({ codex }) => Effect.promise(() => codex.close()),
  ).pipe(
    // Once draining starts the codex pool stops restarting its processes.
    Effect.map(
      ({ codex, auth }): AcquiredCodex => ({
        backend: codex,
        auth,
        beginShutdown: () => codex.beginShutdown(),
        conversations: {
          keysOf: (request) => codex.conversationKeys(request),
          watch: (listener) => codex.watchConversations(listener),
        },
      }),
    ),
  );

/**
 * The backend the gateway serves from, as acquired (the gateway's own layers go around it in
 * `backend/backend-stack.ts`). Only this file decides which implementation that is.
 */
export class Backend extends Context.Service<Backend, AcquiredBackend>()("@proxy/gateway/Backend") {
  /** The default: a sealed, supervised codex app-server pool, closed when the runtime is disposed. */
  static readonly layerCodex = (
    config: GatewayConfig,
    logger: Logger,
    env: NodeJS.ProcessEnv = process.env,
    onRpcResult?: RpcResultObserver,
  ) => Backend.layerCodexOver(acquireCodex(config, logger, env, onRpcResult));

  /** codex as the one route (`codex`), over a given acquisition (the contract suite passes a scripted one). */
  static readonly layerCodexOver = (codex: Effect.Effect<AcquiredCodex, never, Scope.Scope>) =>
    Layer.effect(
      Backend,
      codex.pipe(
        Effect.map(({ backend, auth, beginShutdown, conversations }): AcquiredBackend => {
          const route = (codex: TextBackend) => createRouteStack(codex, { id: DEFAULT_CODEX_ROUTE, auth });
          return {
            backend: route(backend),
            beginShutdown,
            codex: conversations && {
              conversations,
              turns: auth ? wrapBackend(backend, [auth]) : backend,
              beneathRoutes: (layer) => ({ backend: route(wrapBackend(backend, [layer])) }),
            },
          };
        }),
      ),
    );

  /** The `models` routes: codex and OpenAI-compatible upstreams side by side, picked by model name. */
  static readonly layerRoutes = (
    config: GatewayConfig,
    logger: Logger,
    env: NodeJS.ProcessEnv = process.env,
    onRpcResult?: RpcResultObserver,
    tokens?: TokenEncoding,
  ) => Backend.layerRoutesOver(config, logger, env, acquireCodex(config, logger, env, onRpcResult), tokens);

  /** The routes over a given codex acquisition (the backend contract suite passes a scripted one). */
  static readonly layerRoutesOver = (
    config: GatewayConfig,
    logger: Logger,
    env: Readonly<Record<string, string | undefined>>,
    codex: Effect.Effect<AcquiredCodex, never, Scope.Scope>,
    /** The gateway's tokenizer (upstreams that report no usage); its own lazy one if absent. */
    tokens: TokenEncoding = lazyO200kEncoding(),
  ) => Layer.effect(Backend, acquireRoutes(config, logger, env, codex, tokens));

  /** Any other TextBackend (tests, benchmarks, the offline demo's scripted backend). */
  static readonly layerFrom = (backend: TextBackend) => Layer.succeed(Backend, { backend });

  /** What the configuration names: the `models` routes when there are some, else codex, logging into `Log`. */
  static readonly layerConfigured = (
    config: GatewayConfig,
    env: NodeJS.ProcessEnv = process.env,
    onRpcResult?: RpcResultObserver,
    tokens?: TokenEncoding,
  ) =>
    Layer.unwrap(
      Log.useSync(({ logger }) =>
        config.models.length > 0
          ? Backend.layerRoutes(config, logger, env, onRpcResult, tokens)
          : Backend.layerCodex(config, logger, env, onRpcResult),
      ),
    );

  /** A backend layer whose failure to start (codex's own reason, a bad CODEX_BIN) is a GatewayStartError. */
  static readonly starting = <E, R>(
    layer: Layer.Layer<Backend, E, R>,
    config: GatewayConfig,
    env: Readonly<Record<string, string | undefined>>,
  ) =>
    Layer.catchCause(layer, (cause) =>
      Layer.effect(Backend, Effect.failCause(startCause(cause, (e) => backendProblem(e, config, env)))),
    );
}

/** The OpenTelemetry exporter, when configured: started with the gateway, flushed and stopped at its end. */
export class Tracing extends Context.Service<Tracing, { readonly tracer: TurnTracer | undefined }>()(
  "@proxy/gateway/Tracing",
) {
  static readonly make = (config: GatewayConfig) =>
    Effect.gen(function* () {
      const { logger } = yield* Log;
      return yield* Effect.acquireRelease(
        startStep(async () => ({ tracer: await startTracing(config, logger) }), tracingProblem),
        ({ tracer }) => Effect.promise(async () => tracer?.shutdown()),
      );
    });
  static readonly layer = (config: GatewayConfig) => Layer.effect(Tracing, Tracing.make(config));
}
