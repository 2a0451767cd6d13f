import type { BackendMiddleware } from "@proxy/core/gateway";
import type { RouteConfig } from "./route-config.js";

/**
 * A route's request as its backend is asked: the route's `upstreamModel` (default: its id) and its
 * default reasoning effort; `toolMode: prompt` keeps the route in prompt mode whatever its backend
 * can do.
 */
export const routeRequest = (config: RouteConfig): BackendMiddleware => {
  const model = config.upstreamModel ?? config.id;
  const prompt = config.toolMode === "prompt";
  return {
    stream: (request, options, next) =>
      next(
        { ...request, model, reasoningEffort: request.reasoningEffort ?? config.reasoningEffort },
        options,
      ),
    capabilitiesFor: (_, next) => (prompt ? { nativeTools: false } : next(model)),
  };
};
