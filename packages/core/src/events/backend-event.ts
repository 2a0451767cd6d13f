import type { GatewayError } from "../errors/gateway-error.js";
import type { Finish } from "../model/finish-reason.js";
import type { Usage } from "../model/usage.js";

/**
 * What a backend streams for one turn. `stream-start` marks the moment the backend accepted the
 * turn: failures before it are request failures (an HTTP status), after it they are stream
 * failures (an SSE error/terminal event). The `tool-call*` events come only from a native turn:
 * the model's own function calls, with the client's tool names. A call may stream
 * (`tool-call-start`, `tool-call-delta`*) before its final `tool-call`, or arrive as a lone
 * `tool-call`; calls may interleave with each other and with text. `route` names which of the
 * gateway's routes took the turn (`stream-start`) or refused it before it started (`error`): a
 * routing layer sets it, so it travels with the turn to the response's headers and logs.
 */
export type BackendEvent =
  | {
      readonly type: "stream-start";
      readonly model?: string | undefined;
      readonly turnId?: string | undefined;
      readonly route?: string | undefined;
    }
  | { readonly type: "text-delta"; readonly delta: string }
  | { readonly type: "reasoning-delta"; readonly delta: string }
  | { readonly type: "tool-call-start"; readonly callId: string; readonly name: string }
  | { readonly type: "tool-call-delta"; readonly callId: string; readonly delta: string }
  /** The complete call; `arguments` is the full JSON text (the deltas, if any, are its prefix). */
  | { readonly type: "tool-call"; readonly callId: string; readonly name: string; readonly arguments: string }
  | { readonly type: "usage"; readonly usage: Usage }
  | { readonly type: "finish"; readonly finish: Finish }
  | { readonly type: "error"; readonly error: GatewayError; readonly route?: string | undefined };
