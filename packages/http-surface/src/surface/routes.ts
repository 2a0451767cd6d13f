/**
 * One route of an HTTP surface, declared once: the sub-app registers it from this, and the
 * composition root derives its 405 answers and its OpenAPI document from the same list.
 */
export interface RouteSpec {
  readonly method: "GET" | "POST" | "DELETE";
  /** Hono path, relative to where the sub-app is mounted (`/responses/:id`). */
  readonly path: string;
  readonly summary: string;
  /** JSON body keys a request must have (OpenAPI hint). */
  readonly requiredBody?: ReadonlyArray<string> | undefined;
  /** Answers SSE when asked (`stream: true`). */
  readonly streams?: boolean | undefined;
  /** Served without an API key. */
  readonly public?: boolean | undefined;
}

/** The same routes mounted under `prefix`. */
export const mountRoutes = (prefix: string, routes: Readonly<Record<string, RouteSpec>>): RouteSpec[] =>
  Object.values(routes).map((route) => ({ ...route, path: `${prefix}${route.path}` }));
