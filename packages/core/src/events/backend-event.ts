import type { GatewayError } from "../errors/gateway-error.js";
import type { Finish } from "../model/finish-reason.js";
import type { Usage } from "../model/usage.js";

/**
 * What a text-only backend streams for one turn. `stream-start` marks the moment the backend
 * accepted the turn: failures before it are request failures (an HTTP status), after it they
 * are stream failures (an SSE error/terminal event).
 */
export type BackendEvent =
  | {
      readonly type: "stream-start";
      readonly model?: string | undefined;
      readonly turnId?: string | undefined;
    }
  | { readonly type: "text-delta"; readonly delta: string }
  | { readonly type: "reasoning-delta"; readonly delta: string }
  | { readonly type: "usage"; readonly usage: Usage }
  | { readonly type: "finish"; readonly finish: Finish }
  | { readonly type: "error"; readonly error: GatewayError };
