import type { Caller, TurnHandle } from "@proxy/core/gateway";

/** The request's turn as the host's middleware may read it once the surface started it. */
export type RunningTurn = Pick<TurnHandle, "route" | "telemetry">;

import type { Context } from "hono";

/**
 * The facts one request carries between the host's middleware and the surfaces, typed on Hono's
 * context (as hono's own `request-id` middleware types its id): no string keys, no casts.
 */
declare module "hono" {
  interface ContextVariableMap {
    /** The request's id as the host set it (its logs carry it); the same type hono's `requestId` middleware declares. */
    requestId: string;
    /** Who is calling, as the host's auth set it; unset when no auth ran (a surface served alone). */
    caller: Caller | undefined;
    /** The request's turn, once a surface started it. */
    turn: RunningTurn | undefined;
  }
}

/**
 * The request's turn, for the host's middleware after the handler returned: the route that took it
 * (from the backend's `stream-start`), its telemetry. Undefined before a turn ran.
 */
export const requestTurn = (c: Context): RunningTurn | undefined => c.get("turn");

/** The request's id as the host set it, if it did. */
export const hostRequestId = (c: Context): string | undefined => {
  const id: string | undefined = c.get("requestId");
  return id === "" ? undefined : id;
};
