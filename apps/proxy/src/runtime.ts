import { createCodexBackend } from "@proxy/adapter-codex-appserver";
import type { TextBackend } from "@proxy/core";
import { createGatewayBackend, type GatewayBackend } from "./backend/gateway-backend.js";
import { requireBackendAuth } from "./backend/require-auth.js";
import type { GatewayConfig } from "./config/config.js";
import type { Logger } from "./observability/logger.js";

/** A running backend and how to stop it. */
export interface BackendHandle {
  readonly backend: GatewayBackend;
  close(): Promise<void>;
}

/**
 * The backend the gateway serves from. Only this file decides which implementation that is.
 * The default: a sealed, supervised codex app-server pool, closed by `close()` at shutdown.
 */
export const openCodexBackend = async (
  config: GatewayConfig,
  logger: Logger,
  env: NodeJS.ProcessEnv = process.env,
): Promise<BackendHandle> => {
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
  return {
    backend: createGatewayBackend(guarded, config.modelAliases, () => codex.beginShutdown()),
    close: () => codex.close(),
  };
};

/** Any other TextBackend (tests, benchmarks, the offline demo's scripted backend). */
export const backendFrom = (
  backend: TextBackend,
  aliases: Readonly<Record<string, string>> = {},
): BackendHandle => ({ backend: createGatewayBackend(backend, aliases), close: async () => undefined });
