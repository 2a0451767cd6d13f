import type { TurnTelemetry } from "@proxy/core";
import type { Context } from "hono";

declare module "hono" {
  interface ContextVariableMap {
    /** The request's turn as it stands, once a surface started it (what the host's middleware reads). */
    turnTelemetry: (() => TurnTelemetry) | undefined;
  }
}

/**
 * The request's turn so far, for the host's middleware after the handler returned: the route that
 * took it (from the backend's `stream-start`), its calls, its usage. Undefined before a turn ran.
 */
export const requestTurn = (c: Context): TurnTelemetry | undefined => c.get("turnTelemetry")?.();
