import type { TextBackend } from "@proxy/core/gateway";
import type { RouteConfig } from "./route-config.js";

/** A configured route with the backend that serves it (already behind its route layers). */
export interface Route {
  readonly config: RouteConfig;
  readonly backend: TextBackend;
}
