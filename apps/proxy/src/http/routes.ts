import type { RouteSpec } from "@proxy/http-surface";
import { SURFACES } from "./surfaces.js";

/** A route of the gateway's; `admin`: it takes the admin key (`PROXY_ADMIN_KEY`), not an API key. */
export interface GatewayRouteSpec extends RouteSpec {
  readonly admin?: boolean | undefined;
}

/** The gateway's own routes; the API surfaces declare theirs next to their handlers. */
export const GATEWAY_ROUTES = {
  index: {
    method: "GET",
    path: "/",
    summary: "Where things are: each API's base URL, this document, the health checks, the inspector.",
    public: true,
  },
  healthz: { method: "GET", path: "/healthz", summary: "Process is up.", public: true },
  readyz: {
    method: "GET",
    path: "/readyz",
    summary: "Backend initialized and not saturated; with model routes, each route under `routes`.",
    public: true,
  },
  metrics: { method: "GET", path: "/metrics", summary: "Prometheus metrics.", public: true },
  openapi: { method: "GET", path: "/openapi.json", summary: "This document.", public: true },
  models: {
    method: "GET",
    path: "/v1/models",
    summary: "List the backend's models plus configured aliases.",
  },
  model: { method: "GET", path: "/v1/models/:id", summary: "Retrieve one model." },
} as const satisfies Record<string, RouteSpec>;

/** Every route the gateway serves: the one list 405 answers and the OpenAPI document derive from. */
export const routesOf = (
  surfaces: ReadonlyArray<{ readonly routes: ReadonlyArray<RouteSpec> }>,
): RouteSpec[] => [...surfaces.flatMap((s) => s.routes), ...Object.values(GATEWAY_ROUTES)];

export const ROUTES: ReadonlyArray<RouteSpec> = routesOf(SURFACES);

/** A path whose last segment is a parameter plus an action (`/models/:model:generateContent`). */
const ACTION_SEGMENT = /:\w+:\w+$/;

/**
 * Path → the methods it answers (`Allow` of a 405). Action paths are left out: Hono cannot route
 * on a suffix inside a segment, so the surface serving them answers unknown actions itself.
 */
export const allowedMethods = (routes: ReadonlyArray<RouteSpec>): ReadonlyMap<string, string> => {
  const byPath = new Map<string, string[]>();
  for (const r of routes)
    if (!ACTION_SEGMENT.test(r.path)) byPath.set(r.path, [...(byPath.get(r.path) ?? []), r.method]);
  return new Map([...byPath].map(([path, methods]) => [path, methods.join(", ")]));
};
