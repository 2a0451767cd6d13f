import { type BackendRequest, GatewayError } from "@proxy/core";
import type { BackendBatch, BackendEvent } from "@proxy/core/gateway";

/**
 * The internal call between replicas (`POST /internal/turn`): the turn as the forwarding replica's
 * layers made it, and the owner's backend events back as NDJSON, one line per batch, with
 * heartbeats while the owner waits on its model. Plain JSON: everything in a `BackendRequest`
 * and a backend event is data, but a `GatewayError`, which travels as its fields.
 */
export const INTERNAL_TURN_PATH = "/internal/turn";
/** The header that carries the replicas' shared secret. */
export const REPLICA_SECRET_HEADER = "x-proxy-replica-secret";

export interface ForwardedTurn {
  /** The conversation key the forwarder found the owner by (the owner checks the request derives it). */
  readonly key: string;
  readonly request: BackendRequest;
  /** How often the owner must write a line while it has nothing else to write. */
  readonly heartbeatMs: number;
}

interface WireError {
  readonly kind: GatewayError["kind"];
  readonly message: string;
  readonly param: string | null;
  readonly code: string;
  readonly retryAfterSeconds?: number | undefined;
  readonly contextWindow?: number | undefined;
  readonly inputTokens?: number | undefined;
}

/** One NDJSON line of the owner's answer. */
export type TurnLine =
  | { readonly t: "batch"; readonly events: ReadonlyArray<unknown> }
  | { readonly t: "beat" }
  /** The owner's backend refused the turn before its first event. */
  | { readonly t: "refused"; readonly error: WireError }
  | { readonly t: "end" };

const toWireError = (error: GatewayError): WireError => ({
  kind: error.kind,
  message: error.message,
  param: error.param,
  code: error.code,
  retryAfterSeconds: error.retryAfterSeconds,
  contextWindow: error.contextWindow,
  inputTokens: error.inputTokens,
});

export const fromWireError = (wire: WireError): GatewayError =>
  new GatewayError(wire.kind, wire.message, {
    ...(wire.param === null ? {} : { param: wire.param }),
    code: wire.code,
    retryAfterSeconds: wire.retryAfterSeconds,
    contextWindow: wire.contextWindow,
    inputTokens: wire.inputTokens,
  });

export const batchLine = (batch: BackendBatch): string =>
  `${JSON.stringify({
    t: "batch",
    events: batch.map((e) => (e.type === "error" ? { ...e, error: toWireError(e.error) } : e)),
  })}\n`;

export const refusedLine = (error: GatewayError): string =>
  `${JSON.stringify({ t: "refused", error: toWireError(error) })}\n`;

export const BEAT_LINE = '{"t":"beat"}\n';
export const END_LINE = '{"t":"end"}\n';

export const fromWireBatch = (events: ReadonlyArray<unknown>): BackendBatch =>
  events.map((e) => {
    const event = e as BackendEvent | { type: "error"; error: WireError };
    return event.type === "error"
      ? { ...event, error: fromWireError(event.error as WireError) }
      : (event as BackendEvent);
  });
