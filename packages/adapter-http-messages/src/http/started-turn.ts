import type { AssistantEvent, FinishReason, GatewayError, TurnTelemetry } from "@proxy/core";
import type { MessageMeta } from "../response/message-shapes.js";

/** How a response ended, for the observer. */
export interface TurnOutcome {
  readonly finish?: FinishReason | undefined;
  readonly error?: GatewayError | undefined;
  readonly ttfbMs?: number | undefined;
}

/** A turn whose backend accepted the request (`stream-start` seen), handed to one of the encoders. */
export interface StartedTurn {
  readonly meta: MessageMeta;
  /** The turn's `stream-start` event, which opens the message. */
  readonly head: AssistantEvent;
  /** The rest of the turn's events. */
  readonly events: AsyncIterator<AssistantEvent>;
  readonly telemetry: () => TurnTelemetry;
  /** Stop the backend turn (client went away). */
  readonly abort: () => void;
  readonly cancelled: () => boolean;
  /** Idle milliseconds before a stream sends an `event: ping`; 0 = never. */
  readonly keepAliveMs: number;
  readonly elapsedMs: () => number;
  /** Report the end of the response to the observer; only the first call counts. */
  readonly end: (outcome: TurnOutcome) => void;
}

/** The next event of a turn, or undefined at its end. */
export const nextEvent = async (
  events: AsyncIterator<AssistantEvent>,
): Promise<AssistantEvent | undefined> => {
  const r = await events.next();
  return r.done ? undefined : r.value;
};
