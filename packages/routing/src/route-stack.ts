import { type BackendMiddleware, type TextBackend, wrapBackend } from "@proxy/core/gateway";
import { answeringRoute } from "./answering-route.js";
import { routeFallbacks } from "./fallback.js";
import type { Route } from "./route.js";
import { routeAdmission } from "./route-admission.js";
import type { RouteConfig } from "./route-config.js";
import type { RouteLog } from "./route-log.js";
import { routeRequest } from "./route-request.js";

/**
 * Every layer a route puts around its backend is one `BackendMiddleware` in the ordered list below
 * (outermost first, as vercel/ai's `wrapLanguageModel` takes them); the gateway's own layers go
 * around the route table in the composition root (`apps/proxy/src/backend/backend-stack.ts`).
 * Adding a route layer is one file and one entry here.
 */

/** What a route puts in front of its backend. */
export interface RouteLayers {
  readonly id: string;
  /** A configured route's request rewrite (upstream model, default effort, `toolMode: prompt`). */
  readonly config?: RouteConfig | undefined;
  /** The route's own concurrency limit (`models[].maxInFlight`). */
  readonly admission?: { readonly maxInFlight: number; readonly maxQueue: number } | undefined;
  /** The backend's login check (codex's, given by the composition root), shared by every codex route. */
  readonly auth?: BackendMiddleware | undefined;
}

/**
 * One route's layers around its backend: its name on the turn, its request, its admission, the
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
export const createRouteStacks = (routes: ReadonlyArray<RouteBackend>, logger: RouteLog): Route[] => {
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
