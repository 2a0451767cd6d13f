import {
  type BackendReadiness,
  type BackendRequest,
  backendStream,
  GatewayError,
  type ModelInfo,
  type TextBackend,
} from "@proxy/core";
import type { RouteConfig } from "./route-config.js";

/** A configured route with the backend that serves it (already wrapped in its admission). */
export interface Route {
  readonly config: RouteConfig;
  readonly backend: TextBackend;
}

/** One route's line in `/readyz` and in the `route`-labelled metrics. */
export interface RouteStatus extends BackendReadiness {
  readonly route: string;
  readonly backend: RouteConfig["backend"];
}

export interface RoutedBackend extends TextBackend {
  routes(): ReadonlyArray<RouteStatus>;
}

const sum = (rs: ReadonlyArray<BackendReadiness>, f: (r: BackendReadiness) => number) =>
  rs.reduce((n, r) => n + f(r), 0);

/**
 * Picks the route by the request's `model` (ids and aliases), asks its backend for the route's
 * `upstreamModel` with the route's default reasoning effort, and refuses unknown models with
 * OpenAI's 404 `model_not_found`. `/v1/models` lists every route and alias.
 */
export const createRoutedBackend = (routes: ReadonlyArray<Route>): RoutedBackend => {
  const byName = new Map<string, Route>();
  for (const route of routes)
    for (const name of [route.config.id, ...(route.config.aliases ?? [])]) byName.set(name, route);

  const pick = (request: BackendRequest): { route: Route; request: BackendRequest } => {
    const route = byName.get(request.model);
    if (!route)
      throw new GatewayError(
        "not_found",
        `The model '${request.model}' does not exist. GET /v1/models lists the models this gateway serves.`,
        { param: "model", code: "model_not_found" },
      );
    const { upstreamModel, reasoningEffort } = route.config;
    return {
      route,
      request: {
        ...request,
        model: upstreamModel ?? route.config.id,
        reasoningEffort: request.reasoningEffort ?? reasoningEffort,
      },
    };
  };

  const statuses = (): RouteStatus[] =>
    routes.map(({ config, backend }) => ({
      route: config.id,
      backend: config.backend,
      ...backend.readiness(),
    }));

  return {
    specificationVersion: "v1",
    name: "model router",
    capabilitiesFor(model) {
      const route = byName.get(model);
      if (!route) return undefined;
      // `prompt` keeps a route in prompt mode whatever its backend can do.
      return route.config.toolMode === "prompt" ? { nativeTools: false } : route.backend.capabilities;
    },
    // The route's own batches, read straight through: routing adds nothing per batch.
    stream: (request, options) =>
      backendStream(() => {
        const picked = pick(request);
        return picked.route.backend.stream(picked.request, options).batches();
      }),
    async listModels(): Promise<ReadonlyArray<ModelInfo>> {
      return routes.flatMap(({ config }) => [
        { id: config.id, ownedBy: config.backend },
        ...(config.aliases ?? []).map((alias) => ({
          id: alias,
          description: `alias of ${config.id}`,
          ownedBy: config.backend,
        })),
      ]);
    },
    readiness(): BackendReadiness {
      const all = statuses();
      const down = all.filter((r) => !r.ready).map((r) => r.route);
      return {
        // Ready while any route can serve: one local model being down must not take the others out.
        ready: all.length > down.length,
        inFlight: sum(all, (r) => r.inFlight),
        queued: sum(all, (r) => r.queued),
        capacity: sum(all, (r) => r.capacity),
        restarts: sum(all, (r) => r.restarts),
        detail: down.length === 0 ? `${all.length} route(s) ready` : `not ready: ${down.join(", ")}`,
      };
    },
    routes: statuses,
  };
};
