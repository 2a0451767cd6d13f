import { type BackendRequest, GatewayError } from "@proxy/core";
import {
  type BackendReadiness,
  backendStream,
  type ModelInfo,
  type PlanLimits,
  type TextBackend,
} from "@proxy/core/gateway";
import { capabilitiesOf } from "./fallback.js";
import type { Route } from "./route.js";
import type { RouteConfig } from "./route-config.js";

export type { Route } from "./route.js";

/** One route's line in `/readyz` and in the `route`-labelled metrics. */
export interface RouteStatus extends BackendReadiness {
  readonly route: string;
  readonly backend: RouteConfig["backend"];
}

/** The route table: the backend that picks a route per request, and what the control plane reads of it. */
export interface RouteTable {
  readonly backend: TextBackend;
  routes(): ReadonlyArray<RouteStatus>;
  /** The last known plan usage of a codex route (by id), for its responses' headers. */
  planLimitsOf(route: string): PlanLimits | undefined;
}

const sum = (rs: ReadonlyArray<BackendReadiness>, f: (r: BackendReadiness) => number) =>
  rs.reduce((n, r) => n + f(r), 0);

/**
 * A route's context window: its backend's for the model the route asks it for (codex's catalog;
 * an upstream's `/models` where it says). A backend that cannot list leaves the route without one.
 */
const contextWindowOf = async ({ config, backend }: Route): Promise<number | undefined> => {
  const target = config.upstreamModel ?? config.id;
  const models = await backend.listModels().catch(() => []);
  return models.find((m) => m.id === target)?.contextWindow;
};

/**
 * Picks the route by the request's `model` (ids and aliases) and runs the request on that route's
 * stack (`route-stack.ts`: its fallbacks, upstream model and admission are layers there),
 * refusing unknown models with OpenAI's 404 `model_not_found`. `/v1/models` lists every route and
 * alias, with the context window of the model the route runs.
 */
export const createRouteTable = (routes: ReadonlyArray<Route>): RouteTable => {
  const byName = new Map<string, Route>();
  for (const route of routes)
    for (const name of [route.config.id, ...(route.config.aliases ?? [])]) byName.set(name, route);
  const byId = new Map(routes.map((r) => [r.config.id, r]));

  const find = (request: BackendRequest): Route => {
    const route = byName.get(request.model);
    if (!route)
      throw new GatewayError(
        "not_found",
        `The model '${request.model}' does not exist. GET /v1/models lists the models this gateway serves.`,
        { param: "model", code: "model_not_found" },
      );
    return route;
  };

  const statuses = (): RouteStatus[] =>
    routes.map(({ config, backend }) => ({
      route: config.id,
      backend: config.backend,
      ...backend.readiness(),
    }));

  const backend: TextBackend = {
    specificationVersion: "v1",
    name: "model router",
    capabilitiesFor(model) {
      const route = byName.get(model);
      return route === undefined ? undefined : capabilitiesOf(route);
    },
    // The route's own batches, read straight through (routing adds nothing per batch).
    stream: (request, options) =>
      backendStream(() => find(request).backend.stream(request, options).batches()),
    async listModels(): Promise<ReadonlyArray<ModelInfo>> {
      const windows = await Promise.all(routes.map(contextWindowOf));
      return routes.flatMap(({ config }, i) => {
        const window = windows[i] === undefined ? {} : { contextWindow: windows[i] };
        return [
          { id: config.id, ownedBy: config.backend, ...window },
          ...(config.aliases ?? []).map((alias) => ({
            id: alias,
            description: `alias of ${config.id}`,
            ownedBy: config.backend,
            ...window,
          })),
        ];
      });
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
  };
  return {
    backend,
    routes: statuses,
    planLimitsOf(id) {
      const route = byId.get(id);
      return route?.config.backend === "codex" ? route.backend.readiness().planLimits : undefined;
    },
  };
};
