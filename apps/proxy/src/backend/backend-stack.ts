import { type BackendMiddleware, type PlanLimits, type TextBackend, wrapBackend } from "@proxy/core";
import type { Logger } from "../observability/logger.js";
import { answeringRoute } from "../routing/answering-route.js";
import { routeFallbacks } from "../routing/fallback.js";
import type { Route } from "../routing/route.js";
import { routeAdmission } from "../routing/route-admission.js";
import type { RouteConfig } from "../routing/route-config.js";
import { routeRequest } from "../routing/route-request.js";
import type { RouteStatus } from "../routing/route-table.js";
import { createDrain } from "./drain.js";
import { hostedToolsSwitch } from "./hosted-tools.js";
import { modelAliases } from "./model-aliases.js";

/**
 * Every layer the gateway puts around a backend is one `BackendMiddleware` in one of the ordered
 * lists below (outermost first, as vercel/ai's `wrapLanguageModel` takes them): the gateway's
 * layers around whatever it serves from, and each route's layers around its backend. With
 * `models` routes the route table (`routing/route-table.ts`) sits between the two and only picks
 * the route by name. Adding a layer is one file and one entry here.
 */

/** What the gateway's operators and status pages ask of the stack, beside its stream port. */
export interface BackendControl {
  /** Refuse new turns, wait up to `graceMs` for running ones, then end the rest cleanly. */
  drain(graceMs: number): Promise<void>;
  activeTurns(): number;
  /** Each model route's readiness; undefined when the gateway serves no `models` routes. */
  routes(): ReadonlyArray<RouteStatus> | undefined;
  /** The last known plan usage behind a route (codex), for its responses' headers. */
  planLimitsOf(route: string): PlanLimits | undefined;
}

/** The backend the surfaces stream from, and its control plane beside it. */
export interface BackendStack {
  readonly backend: TextBackend;
  readonly control: BackendControl;
}

/** A backend as the runtime acquired it, with what only the acquisition knows about it. */
export interface AcquiredBackend {
  readonly backend: TextBackend;
  /** Told once draining starts (the codex pool then stops restarting its processes). */
  readonly beginShutdown?: (() => void) | undefined;
  /** The route table's view of its routes, when the backend is one. */
  readonly routes?: (() => ReadonlyArray<RouteStatus>) | undefined;
  /** The plan usage behind a route; default: the one backend's (a single backend is the one route). */
  readonly planLimitsOf?: ((route: string) => PlanLimits | undefined) | undefined;
}

export interface StackOptions {
  /** `PROXY_MODEL_ALIASES`. */
  readonly aliases?: Readonly<Record<string, string>> | undefined;
  /** `claude-*` names run on the backend's default model (default: when there is no route table). */
  readonly claudeOnDefault?: boolean | undefined;
  /** Per-key limits (`usage/key-limits.ts`), when some key has limits. */
  readonly keyLimits?: BackendMiddleware | undefined;
  /** `PROXY_HOSTED_WEB_SEARCH` (default on): off refuses requests asking for the hosted search. */
  readonly hostedWebSearch?: boolean | undefined;
}

/** The gateway's layers around the backend it serves from: hosted tools, limits, drain, aliases. */
export const createBackendStack = (acquired: AcquiredBackend, options: StackOptions = {}): BackendStack => {
  const inner = acquired.backend;
  const drain = createDrain(acquired.beginShutdown);
  const backend = wrapBackend(inner, [
    ...(options.hostedWebSearch === false ? [hostedToolsSwitch(false)] : []),
    ...(options.keyLimits ? [options.keyLimits] : []),
    drain.middleware,
    modelAliases(options.aliases ?? {}, options.claudeOnDefault ?? acquired.routes === undefined),
  ]);
  const routes = acquired.routes;
  return {
    backend,
    control: {
      drain: drain.drain,
      activeTurns: drain.activeTurns,
      routes: () => routes?.(),
      planLimitsOf: acquired.planLimitsOf ?? (() => inner.readiness().planLimits),
    },
  };
};

/** What a route puts in front of its backend. */
export interface RouteLayers {
  readonly id: string;
  /** A configured route's request rewrite (upstream model, default effort, `toolMode: prompt`). */
  readonly config?: RouteConfig | undefined;
  /** The route's own concurrency limit (`models[].maxInFlight`). */
  readonly admission?: { readonly maxInFlight: number; readonly maxQueue: number } | undefined;
  /** codex's login check (`backend/require-auth.ts`), shared by every codex route. */
  readonly auth?: BackendMiddleware | undefined;
}

/**
 * One route's layers around its backend: its name on the turn, its request, its admission, codex's
 * login check (a route with fallbacks gets `routeFallbacks` around this, see below).
 */
export const createRouteStack = (backend: TextBackend, route: RouteLayers): TextBackend =>
  wrapBackend(backend, [
    answeringRoute(route.id),
    ...(route.config ? [routeRequest(route.config)] : []),
    ...(route.admission ? [routeAdmission({ route: route.id, ...route.admission })] : []),
    ...(route.auth ? [route.auth] : []),
  ]);

/** A configured route, its bare backend, and what its layers need. */
export interface RouteBackend extends Omit<RouteLayers, "id" | "config"> {
  readonly config: RouteConfig;
  readonly backend: TextBackend;
}

/**
 * Every configured route behind its layers, and outermost its fallbacks: the other routes' stacks
 * (without their own fallbacks) that take the request when this one fails before its first byte.
 */
export const createRouteStacks = (routes: ReadonlyArray<RouteBackend>, logger: Logger): Route[] => {
  const own = routes.map(
    ({ backend, config, ...layers }): Route => ({
      config,
      backend: createRouteStack(backend, { id: config.id, config, ...layers }),
    }),
  );
  const byName = new Map<string, Route>();
  for (const route of own)
    for (const name of [route.config.id, ...(route.config.aliases ?? [])]) byName.set(name, route);
  return own.map((route) => {
    const targets = [
      ...new Set((route.config.fallbacks ?? []).flatMap((name) => byName.get(name) ?? [])),
    ].filter((target) => target !== route);
    return targets.length === 0
      ? route
      : {
          config: route.config,
          backend: wrapBackend(route.backend, [routeFallbacks(route, targets, logger)]),
        };
  });
};
