import type { ResponsesSink } from "./event-sinks.js";
import {
  buildResponse,
  type ResponseHeader,
  type ResponseObject,
  type ResponseState,
} from "./response-object.js";

/**
 * The response's status and the stream's one `sequence_number`, monotonically increasing from 0:
 * `response.created` (after `response.queued` in background mode), `response.in_progress`, the
 * events in between, exactly one terminal event.
 */
export interface Lifecycle {
  /** The next event's sequence number (for events not built by `emit`). */
  next(): number;
  /** One event: its type, its fields in wire order, its sequence number. */
  emit(sink: ResponsesSink, type: string, fields: Readonly<Record<string, unknown>>): void;
  /** Background mode: `response.created` and `response.queued` (status queued), before `start`. */
  queue(sink: ResponsesSink): void;
  /** `response.created` (in_progress, output []) then `response.in_progress` (only that after `queue`). */
  start(sink: ResponsesSink): void;
  /** Ends the response in `state` with its terminal event (`response.completed`, `.incomplete`, `.failed`). */
  settle(sink: ResponsesSink, state: ResponseState, type: string): void;
  /** The Response object as it stands. */
  snapshot(): ResponseObject;
  /** The response reached its terminal state; later events are dropped. */
  readonly finished: boolean;
}

const IN_PROGRESS: ResponseState = { status: "in_progress", output: [] };

export const createLifecycle = (header: ResponseHeader): Lifecycle => {
  let sequence = 0;
  let state = IN_PROGRESS;
  // A background response waits `queued` until its turn really starts (see `queue`).
  let queued = false;
  const snapshot = (): ResponseObject => {
    const response = buildResponse(header, state);
    return queued && state.status === "in_progress" ? { ...response, status: "queued" } : response;
  };
  const emit = (sink: ResponsesSink, type: string, fields: Readonly<Record<string, unknown>>): void =>
    sink.event({ type, ...fields, sequence_number: sequence++ });
  return {
    next: () => sequence++,
    emit,
    queue(sink) {
      queued = true;
      emit(sink, "response.created", { response: snapshot() });
      emit(sink, "response.queued", { response: snapshot() });
    },
    start(sink) {
      if (!queued) emit(sink, "response.created", { response: snapshot() });
      queued = false;
      emit(sink, "response.in_progress", { response: snapshot() });
    },
    settle(sink, terminal, type) {
      state = terminal;
      emit(sink, type, { response: snapshot() });
    },
    snapshot,
    get finished() {
      return state.status !== "in_progress";
    },
  };
};
