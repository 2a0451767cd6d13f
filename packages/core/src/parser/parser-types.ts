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

export type RejectReason =
  | "unknown-tool" // name not in `tools`
  | "invalid-json" // block or arguments unparsable even with what was missing added
  | "schema-mismatch" // strict tool whose arguments fail its schema, or arguments refused in any mode
  | "block-too-large" // exceeded maxBlockBytes
  | "unterminated"; // stream ended inside a block that could not be recovered

/**
 * Output of the sentinel parser. Per call: `call-start`, `call-delta`*, `call-end`, never
 * interleaved with text or other calls; a `call-rejected` carrying that call's `index` may end it
 * instead of `call-end`. A `call-rejected` that is not strict is followed by a `text` event
 * carrying the raw block (an unusable block is plain text). A block that did not close is never
 * a call unless its JSON object did, and a block over the size limit is never a shortened call.
 */
export type ParserEvent =
  | { readonly type: "text"; readonly text: string }
  | {
      readonly type: "call-start";
      readonly index: number;
      readonly name: string;
      /** The model's own call id (native turns); the gate mints one when absent. */
      readonly callId?: string | undefined;
    }
  | { readonly type: "call-delta"; readonly index: number; readonly delta: string }
  | {
      readonly type: "call-end";
      readonly index: number;
      readonly name: string;
      /** Exactly the concatenation of this call's deltas; a JSON object text. */
      readonly arguments: string;
      /** The `id` of the block format the call was written in. */
      readonly format: string;
      /** True when the model's JSON needed escapes or closing brackets added (see docs/core.md). */
      readonly repaired: boolean;
      /** Soft tools: the schema mismatch that was tolerated. */
      readonly schemaWarning?: string | undefined;
      /** The block as the model wrote it, sentinels included. */
      readonly raw: string;
    }
  | {
      readonly type: "call-rejected";
      readonly reason: RejectReason;
      readonly name?: string | undefined;
      readonly strict: boolean;
      readonly detail: string;
      readonly raw: string;
      /**
       * Set when this block's call had already started streaming (`call-start` with this index
       * was emitted) and the block was then cut off or outgrew its budget: the call is withdrawn
       * and must never be used. A consumer that already forwarded part of it has to fail.
       */
      readonly index?: number | undefined;
    };

/**
 * Where `pushTo`/`flushTo` deliver a push's events, in order, without an array or a text event
 * object per push. Adjacent text arrives as one `text` call; `event` never gets a `text` event.
 */
export interface ParserSink {
  text(text: string): void;
  event(event: Exclude<ParserEvent, { type: "text" }>): void;
}

export interface SentinelParser {
  push(chunk: string): ParserEvent[];
  flush(): ParserEvent[];
  /** `push`, its events delivered to `sink` (the hot path: a plain text piece is one `sink.text`). */
  pushTo(chunk: string, sink: ParserSink): void;
  /** `flush`, its events delivered to `sink`. */
  flushTo(sink: ParserSink): void;
}
