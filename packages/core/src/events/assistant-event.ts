import type { GatewayError } from "../errors/gateway-error.js";
import type { Finish } from "../model/finish-reason.js";
import type { Usage } from "../model/usage.js";

/**
 * The one assistant event stream every HTTP adapter encodes. Tool calls never interleave:
 * a `tool-call-start` is followed by its deltas and its `tool-call-end` before anything else.
 * Exactly one `finish` ends a successful stream; an `error` ends a failed one.
 */
export type AssistantEvent =
  | {
      readonly type: "stream-start";
      readonly model?: string | undefined;
      readonly turnId?: string | undefined;
    }
  | { readonly type: "text-delta"; readonly delta: string }
  | { readonly type: "reasoning-delta"; readonly delta: string }
  | {
      readonly type: "tool-call-start";
      /** 0-based, contiguous in order of appearance. */
      readonly index: number;
      /** Responses output item id (`fc_…`). */
      readonly id: string;
      /** Correlation id (`call_…`): the Chat `tool_calls[].id` and the Responses `call_id`. */
      readonly callId: string;
      readonly name: string;
    }
  /** An append-only fragment of the call's JSON arguments; never a complete-JSON prefix early. */
  | { readonly type: "tool-call-delta"; readonly index: number; readonly delta: string }
  | {
      readonly type: "tool-call-end";
      readonly index: number;
      readonly id: string;
      readonly callId: string;
      readonly name: string;
      /** Final arguments: exactly the concatenation of this call's deltas. */
      readonly arguments: string;
    }
  | { readonly type: "usage"; readonly usage: Usage }
  | { readonly type: "finish"; readonly finish: Finish }
  | { readonly type: "error"; readonly error: GatewayError };

export type ToolCall = Extract<AssistantEvent, { type: "tool-call-end" }>;
