import { createCodexBackend } from "@proxy/adapter-codex-appserver";
import type { TextBackend } from "@proxy/core";
import { Context, Effect, Layer } from "effect";
import { createGatewayBackend, type GatewayBackend } from "./backend/gateway-backend.js";
import { requireBackendAuth } from "./backend/require-auth.js";
import type { GatewayConfig } from "./config/config.js";
import type { Logger } from "./observability/logger.js";

/** The backend the gateway serves from. Only this file decides which implementation that is. */
export class Backend extends Context.Service<Backend, GatewayBackend>()("@proxy/gateway/Backend") {
  /** The default: a sealed, supervised codex app-server pool, closed when the runtime is disposed. */
  static readonly layerCodex = (
    config: GatewayConfig,
    logger: Logger,
    env: NodeJS.ProcessEnv = process.env,
  ) =>
    Layer.effect(
      Backend,
      Effect.acquireRelease(
        Effect.promise(async () => {
          const codex = createCodexBackend({
            ...(config.codexBin ? { codexBin: config.codexBin } : {}),
            poolSize: config.codexPoolSize,
            maxInFlight: config.maxInFlight,
            maxQueue: config.maxQueue,
            env,
            passEnv: config.codexPassEnv,
            logger: logger.child({ component: "codex" }),
          });
          await codex.warmup();
          const auth = await codex.checkAuth().catch((error: unknown) => ({
            authenticated: false,
            requiresOpenaiAuth: true,
            detail: String(error),
          }));
          if (!auth.authenticated && auth.requiresOpenaiAuth) {
            logger.warn(
              { detail: auth.detail },
              "codex has no usable credentials: requests will fail until you run `codex login` (or set CODEX_HOME to a configured home)",
            );
          }
          const guarded = requireBackendAuth(codex, () => codex.checkAuth(), auth);
          const gateway = createGatewayBackend(guarded, config.modelAliases, () => codex.beginShutdown());
          return { codex, gateway };
        }),
        ({ codex }) => Effect.promise(() => codex.close()),
      ).pipe(Effect.map(({ gateway }) => gateway)),
    );

  /** Any other TextBackend (tests, benchmarks, the offline demo's scripted backend). */
  static readonly layerFrom = (backend: TextBackend, aliases: Readonly<Record<string, string>> = {}) =>
    Layer.succeed(Backend, createGatewayBackend(backend, aliases));
}
