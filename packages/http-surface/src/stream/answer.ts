import { GatewayError, toGatewayError } from "@proxy/core";
import type { Clock } from "@proxy/core/gateway";
import type { Context } from "hono";
import { nodeOutgoing } from "../request/connection.js";
import type { TurnAbort } from "../turn/abort.js";
import { SSE_HEADERS } from "./sse-body.js";
import { createSseStream, type SseSink } from "./sse-sink.js";

/**
 * Closes the socket under a Node server (`@hono/node-server` puts the response in `c.env.outgoing`).
 * Elsewhere the caller errors the body instead, which the runtime turns into a dropped connection.
 */
const dropConnection = (c: Context): boolean => {
  const outgoing = nodeOutgoing(c);
  if (outgoing === undefined) return false;
  outgoing.destroy();
  return true;
};

/**
 * Holds the stream's first writes until the loop's next turn, so its headers leave with the frames
 * that are ready by then: node-server flushes an event stream's headers on their own, one more
 * socket write per streamed answer (as much CPU as the body's writes when an upstream's answer
 * arrives at once). Headers are never held longer than that turn: a slow first token does not
 * delay them. Under a Node server only; elsewhere there is no socket to hold.
 */
const holdFirstWrites = (c: Context): void => {
  const outgoing = nodeOutgoing(c);
  if (outgoing?.cork === undefined || outgoing.uncork === undefined || outgoing.destroyed) return;
  outgoing.cork();
  setImmediate(() => outgoing.uncork?.());
};

/**
 * How long a blocked write may wait: the write timeout (0 = none), cut short by the request's
 * deadline (0 = none); undefined = forever.
 */
export const writeStallDelay =
  (writeTimeoutMs: number, deadlineAt: number, clock: Clock) => (): number | undefined => {
    const write = writeTimeoutMs > 0 ? writeTimeoutMs : Number.POSITIVE_INFINITY;
    const deadline = deadlineAt > 0 ? Math.max(0, deadlineAt - clock.now()) : Number.POSITIVE_INFINITY;
    const ms = Math.min(write, deadline);
    return Number.isFinite(ms) ? ms : undefined;
  };

/** What one streamed answer is wired to: the session's abort, its clock-keeping and its report. */
export interface TurnStreamWiring {
  readonly abort: TurnAbort;
  readonly keepAliveFrame: string | undefined;
  readonly keepAliveMs: number;
  readonly stallDelay: () => number | undefined;
  /** Every write of turn output (the time to first byte). */
  readonly onWrite: () => void;
  /** The client stopped reading: the turn's error from now on. */
  readonly onStall: (error: GatewayError) => void;
  /** `write` threw: the turn's error unless it has one. */
  readonly onError: (error: GatewayError) => void;
  /** `write` returned or threw and the stream is closed. */
  readonly onEnd: () => void;
}

/**
 * Answers with an SSE stream filled by `write`: keep-alives in the surface's form, a client that
 * goes away aborts the turn, and one that stops reading for the stall delay is dropped (its turn
 * interrupted with a timeout, its backend slot freed).
 */
export const streamTurnAnswer = (
  c: Context,
  wiring: TurnStreamWiring,
  write: (sink: SseSink) => Promise<void>,
): Response => {
  const { abort } = wiring;
  const sse = createSseStream({
    onCancel: abort.clientGone,
    onStall: (body) => {
      const error = new GatewayError("timeout", "The client stopped reading the stream.");
      wiring.onStall(error);
      abort.stalled();
      if (dropConnection(c)) body.detach();
      else body.abort(error);
    },
    stallDelay: wiring.stallDelay,
    onWrite: wiring.onWrite,
    signal: abort.signal,
    keepAliveFrame: wiring.keepAliveFrame,
    keepAliveMs: wiring.keepAliveMs,
  });
  holdFirstWrites(c);
  void write(sse.sink)
    .catch((e: unknown) => wiring.onError(toGatewayError(e)))
    .finally(() => {
      sse.close();
      wiring.onEnd();
    });
  return c.body(sse.body.readable, 200, SSE_HEADERS);
};
