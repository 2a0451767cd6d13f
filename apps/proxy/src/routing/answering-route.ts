import { backendBatches, batchedEvents, type TextBackend } from "@proxy/core";

/** Told which route is serving the current request; the last one told answered it. */
export type RouteReporter = (route: string) => void;

/** The route id of the codex backend the gateway serves from when no `models` are configured. */
export const DEFAULT_CODEX_ROUTE = "codex";

/** A single backend serving as one route: it reports `id` for every turn it takes. */
export const reportingRoute = (inner: TextBackend, id: string, report: RouteReporter): TextBackend => ({
  ...inner,
  get capabilities() {
    return inner.capabilities;
  },
  stream(request, options) {
    report(id);
    return batchedEvents(() => backendBatches(inner, request, options));
  },
  listModels: () => inner.listModels(),
  readiness: () => inner.readiness(),
});
