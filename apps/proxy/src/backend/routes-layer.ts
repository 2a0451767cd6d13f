import type { TokenEncoding } from "@proxy/core";
import { type BackendMiddleware, type TextBackend, wrapBackend } from "@proxy/core/gateway";
import { createRouteStacks, createRouteTable, type RouteBackend, type RouteConfig } from "@proxy/routing";
import * as Effect from "effect/Effect";
import type * as Scope from "effect/Scope";
import type { GatewayConfig } from "../config/config.js";
import type { Logger } from "../observability/logger.js";
import type { AcquiredBackend, LiveConversations } from "./backend-stack.js";

type UpstreamRoute = Extract<RouteConfig, { backend: "openai-compatible" }>;

/** The codex pool as the runtime acquired it: the bare backend, its login check, its shutdown signal. */
export interface AcquiredCodex {
  readonly backend: TextBackend;
  readonly auth?: BackendMiddleware | undefined;
  readonly beginShutdown?: (() => void) | undefined;
  /** Its live conversations, for replicas sharing them (`replicas/`). */
  readonly conversations?: LiveConversations | undefined;
}

/** One upstream's backend, probed once at startup (a down upstream is logged, not fatal), closed with the scope. */
const acquireUpstream = (
  route: UpstreamRoute,
  logger: Logger,
  env: Readonly<Record<string, string | undefined>>,
  tokens: TokenEncoding,
): Effect.Effect<TextBackend, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      // Loaded only when a route uses it: a codex-only gateway does not carry its HTTP client (undici).
      const { createOpenAICompatibleBackend } = await import("@proxy/adapter-openai-compatible");
      const backend = createOpenAICompatibleBackend({
        tokens,
        baseUrl: route.baseUrl,
        route: route.id,
        apiKey: route.apiKeyEnv ? env[route.apiKeyEnv] : undefined,
        nativeTools: route.toolMode === "native",
        promptCacheKey: route.promptCacheKey === true,
      });
      if (!(await backend.probe()))
        logger.warn(
          { route: route.id, detail: backend.readiness().detail },
          "model route: the upstream did not answer; its requests fail with 503 until it does",
        );
      return backend;
    }),
    (backend) => Effect.promise(() => backend.close()),
  );

/**
 * The routing table from `config.models`: one shared codex backend for every codex route (acquired
 * only if some route uses it), one backend per upstream route, each behind its route's layers.
 */
export const acquireRoutes = (
  config: GatewayConfig,
  logger: Logger,
  env: Readonly<Record<string, string | undefined>>,
  acquireCodex: Effect.Effect<AcquiredCodex, never, Scope.Scope>,
  tokens: TokenEncoding,
): Effect.Effect<AcquiredBackend, never, Scope.Scope> =>
  Effect.gen(function* () {
    const acquired = config.models.some((r) => r.backend === "codex") ? yield* acquireCodex : undefined;
    const routes: RouteBackend[] = [];
    for (const route of config.models) {
      const onCodex = route.backend === "codex" && acquired !== undefined;
      const backend = onCodex
        ? acquired.backend
        : yield* acquireUpstream(route as UpstreamRoute, logger, env, tokens);
      // Upstream routes are limited by default; codex routes share the codex pool's own limit unless set.
      const maxInFlight = route.maxInFlight ?? (route.backend === "codex" ? undefined : config.maxInFlight);
      routes.push({
        config: route,
        backend,
        admission: maxInFlight === undefined ? undefined : { maxInFlight, maxQueue: config.maxQueue },
        auth: onCodex ? acquired.auth : undefined,
      });
    }
    logger.info(
      { routes: config.models.map((r) => ({ id: r.id, backend: r.backend, aliases: r.aliases ?? [] })) },
      "model routes",
    );
    // The route stacks over `codex` for every codex route (layers beneath a route go in there).
    const tableOver = (codex: TextBackend | undefined) =>
      createRouteTable(
        createRouteStacks(
          codex === undefined
            ? routes
            : routes.map((r) => (r.config.backend === "codex" ? { ...r, backend: codex } : r)),
          logger,
        ),
      );
    const conversations = acquired?.conversations;
    return {
      ...tableOver(undefined),
      beginShutdown: () => acquired?.beginShutdown?.(),
      codex: acquired &&
        conversations && {
          conversations,
          turns: acquired.auth ? wrapBackend(acquired.backend, [acquired.auth]) : acquired.backend,
          beneathRoutes: (layer: BackendMiddleware) => tableOver(wrapBackend(acquired.backend, [layer])),
        },
    };
  });
