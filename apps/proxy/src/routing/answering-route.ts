import type { BackendMiddleware } from "@proxy/core";

/** Told which route is serving the current request; the last one told answered it. */
export type RouteReporter = (route: string) => void;

/** The route id of the codex backend the gateway serves from when no `models` are configured. */
export const DEFAULT_CODEX_ROUTE = "codex";

/** A backend serving as one route: it reports `id` for every turn it takes. */
export const answeringRoute = (id: string, report: RouteReporter): BackendMiddleware => ({
  stream(request, options, next) {
    report(id);
    return next(request, options);
  },
});
