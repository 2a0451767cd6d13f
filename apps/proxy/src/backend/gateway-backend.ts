import type { TextBackend } from "@proxy/core/gateway";
import type { BackendControl, BackendStack } from "./backend-stack.js";

/** The stack as the request inspector's status page reads it: the backend's name and readiness, the turns, the routes. */
export interface GatewayBackend extends Pick<TextBackend, "name" | "readiness"> {
  activeTurns: BackendControl["activeTurns"];
  routes?: BackendControl["routes"];
}

/** The status view of a stack, built explicitly (nothing is found by duck typing). */
export const statusView = ({ backend, control }: BackendStack): GatewayBackend => ({
  name: backend.name,
  readiness: () => backend.readiness(),
  activeTurns: control.activeTurns,
  routes: control.routes,
});
