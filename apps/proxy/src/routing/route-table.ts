import {
  type BackendReadiness,
  type BackendRequest,
  backendStream,
  GatewayError,
  type ModelInfo,
  type PlanLimits,
  type TextBackend,
} from "@proxy/core";
import { pino } from "pino";
import type { Logger } from "../observability/logger.js";
import { type Attempt, unfitReason, withFallbacks } from "./fallback.js";
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
 * Picks the route by the request's `model` (ids and aliases), asks its backend for the route's
 * `upstreamModel` with the route's default reasoning effort, and refuses unknown models with
 * OpenAI's 404 `model_not_found`. `/v1/models` lists every route and alias.
 */
export const createRouteTable = (
  routes: ReadonlyArray<Route>,
  options: { readonly logger?: Logger | undefined } = {},
): RouteTable => {
  const byName = new Map<string, Route>();
  for (const route of routes)
    for (const name of [route.config.id, ...(route.config.aliases ?? [])]) byName.set(name, route);
  const byId = new Map(routes.map((r) => [r.config.id, r]));
  const logger = options.logger ?? pino({ level: "silent" });

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
  /** The request as `route`'s backend is asked: its upstream model, its default reasoning effort. */
  const requestFor = (route: Route, request: BackendRequest): BackendRequest => ({
    ...request,
    model: route.config.upstreamModel ?? route.config.id,
    reasoningEffort: request.reasoningEffort ?? route.config.reasoningEffort,
  });
  // `prompt` keeps a route in prompt mode whatever its backend can do.
  const capabilitiesOf = (route: Route) =>
    route.config.toolMode === "prompt" ? { nativeTools: false } : route.backend.capabilities;

  /** The primary, then each fallback that can serve what the primary's request became. */
  const attemptsFor = (request: BackendRequest): Attempt[] => {
    const primary = find(request);
    const attempts: Attempt[] = [{ route: primary, request: requestFor(primary, request) }];
    for (const name of primary.config.fallbacks ?? []) {
      const route = byName.get(name);
      if (route === undefined || attempts.some((a) => a.route === route)) continue;
      const why = unfitReason(request, route, capabilitiesOf(route)?.nativeTools === true);
      if (why !== undefined)
        logger.info(
          { route: primary.config.id, fallback: route.config.id, reason: why },
          "model route: fallback skipped",
        );
      else attempts.push({ route, request: requestFor(route, request) });
    }
    return attempts;
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
    // One route: its own batches, read straight through (routing adds nothing per batch).
    stream: (request, options) =>
      backendStream(() => {
        const attempts = attemptsFor(request);
        const only = attempts.length === 1 ? attempts[0] : undefined;
        if (only === undefined) return withFallbacks(attempts, options.signal, logger);
        return only.route.backend.stream(only.request, options).batches();
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
