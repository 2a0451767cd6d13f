export { answeringRoute, DEFAULT_CODEX_ROUTE } from "./answering-route.js";
export { capabilitiesOf, routeFallbacks, unfitReason } from "./fallback.js";
export type { Route } from "./route.js";
export { routeAdmission } from "./route-admission.js";
export {
  CodexRoute,
  OpenAICompatibleRoute,
  RouteConfig,
  type RouteTurnSettings,
  routeProblem,
  routeSettingsOf,
} from "./route-config.js";
export type { RouteLog } from "./route-log.js";
export { routeRequest } from "./route-request.js";
export { createRouteStack, createRouteStacks, type RouteBackend, type RouteLayers } from "./route-stack.js";
export { createRouteTable, type RouteStatus, type RouteTable } from "./route-table.js";
