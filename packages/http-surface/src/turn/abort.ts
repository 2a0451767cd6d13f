import type { ClientWatch } from "../request/connection.js";

/** The request's one AbortController and why it fired. */
export interface TurnAbort {
  /** Aborted when the client goes away or stopped reading; the turn and its backend stop with it. */
  readonly signal: AbortSignal;
  /** The client went away (its signal aborted, or it cancelled the stream body). */
  clientGone(): void;
  /** The client stopped reading the stream: the turn stops, as a timeout rather than a cancel. */
  stalled(): void;
  /** The client went away (stalled or not). */
  isClientGone(): boolean;
  /** The turn ends as cancelled by the client: it went away without having stalled first. */
  cancelledByClient(): boolean;
  /** Stops listening to the client's signal (the turn was reported). */
  detach(): void;
}

/**
 * Aborts the turn when `watch` tells the client went away (the request's connection, or a
 * background turn's own cancel), when the stream body is cancelled, or when the client stalls.
 */
export const createTurnAbort = (watch: ClientWatch): TurnAbort => {
  const controller = new AbortController();
  let gone = false;
  let stalled = false;
  const clientGone = () => {
    gone = true;
    controller.abort();
  };
  const unwatch = watch(clientGone);
  return {
    signal: controller.signal,
    clientGone,
    stalled() {
      stalled = true;
      controller.abort();
    },
    isClientGone: () => gone,
    cancelledByClient: () => gone && !stalled,
    detach: unwatch,
  };
};
