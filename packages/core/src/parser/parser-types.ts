import type { ParserEvent } from "../events/stream-event.js";

/**
 * Checks parsed arguments against a tool's JSON Schema (compiled once per request). A failure
 * with `refused` is not a call in soft mode either (a value the schema forbids outright, such as
 * one a `false` subschema matches); other failures are only warnings for soft tools.
 */
export interface ArgumentsValidator {
  validate(
    toolName: string,
    args: unknown,
  ):
    | { readonly ok: true }
    | { readonly ok: false; readonly message: string; readonly refused?: boolean | undefined };
}

/** The parser's events are the call reader's view of the one vocabulary (events/stream-event.ts). */
export type { ParserEvent, RejectReason } from "../events/stream-event.js";

/**
 * Where `pushTo`/`flushTo` deliver a push's events, in order, without an array or a text event
 * object per push. Adjacent text arrives as one `text` call; `event` never gets a `text-delta` event (the
 * hot path: a plain text piece costs no event object).
 */
export interface ParserSink {
  text(text: string): void;
  event(event: Exclude<ParserEvent, { type: "text-delta" }>): void;
}

export interface SentinelParser {
  push(chunk: string): ParserEvent[];
  flush(): ParserEvent[];
  /** `push`, its events delivered to `sink` (the hot path: a plain text piece is one `sink.text`). */
  pushTo(chunk: string, sink: ParserSink): void;
  /** `flush`, its events delivered to `sink`. */
  flushTo(sink: ParserSink): void;
}
