import type { SseSink, TurnSink } from "@proxy/http-surface";
import {
  type ResponsesEvent,
  responsesEventFrame,
  TextDeltaEvent,
  textDeltaFrame,
  textDeltaHead,
} from "./text-delta-event.js";

/**
 * Where the encoder puts a turn's Responses events: a client's SSE stream, a recorder, a background
 * turn's event log. The driver (`pumpTurn`) flushes it once per batch of the turn.
 */
export interface ResponsesSink extends TurnSink {
  event(event: ResponsesEvent): void;
  /** One `response.output_text.delta`: a sink that only writes it needs no event object. */
  textDelta(itemId: string, outputIndex: number, delta: string, sequenceNumber: number): void;
}

/** Receives each event as it is produced (a stored turn's recorder, a background turn's batch). */
export type KeepEvent = (event: ResponsesEvent) => void;

const DELIVERED: Promise<void> = Promise.resolve();

/** A client's SSE stream: each event as its frame; `keep` (a stored turn's recorder) also gets the event. */
export const sseEventSink = (sse: SseSink, keep?: KeepEvent): ResponsesSink => {
  // Every delta of one message item starts with the same bytes: built once per item.
  let headItem: string | undefined;
  let headIndex = -1;
  let head = "";
  return {
    get aborted() {
      return sse.aborted;
    },
    flush: () => sse.flush(),
    event(event) {
      sse.queueText(responsesEventFrame(event));
      keep?.(event);
    },
    textDelta(itemId, outputIndex, delta, sequenceNumber) {
      if (itemId !== headItem || outputIndex !== headIndex) {
        headItem = itemId;
        headIndex = outputIndex;
        head = textDeltaHead(itemId, outputIndex);
      }
      sse.queueText(textDeltaFrame(head, delta, sequenceNumber));
      if (keep !== undefined) keep(new TextDeltaEvent(itemId, outputIndex, delta, sequenceNumber));
    },
  };
};

/**
 * A sink no client reads: each event goes to `keep` (nowhere when absent, as for a stateless JSON
 * answer), and `flush` marks the end of a batch. It is never aborted: such a turn is stopped through
 * its session, and still ends with its terminal event.
 */
export const eventObjectSink = (keep?: KeepEvent, flush: () => void = () => undefined): ResponsesSink => ({
  aborted: false,
  flush() {
    flush();
    return DELIVERED;
  },
  event(event) {
    keep?.(event);
  },
  textDelta(itemId, outputIndex, delta, sequenceNumber) {
    if (keep !== undefined) keep(new TextDeltaEvent(itemId, outputIndex, delta, sequenceNumber));
  },
});

/** The events `produce` puts into a sink, as one batch (the opening and closing events of a background turn). */
export const collectEvents = (produce: (sink: ResponsesSink) => void): ResponsesEvent[] => {
  const events: ResponsesEvent[] = [];
  produce(eventObjectSink((event) => events.push(event)));
  return events;
};
