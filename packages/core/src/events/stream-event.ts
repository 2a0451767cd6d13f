import type { GatewayError } from "../errors/gateway-error.js";
import type { Finish } from "../model/finish-reason.js";
import type { WebSearchAction } from "../model/hosted-tools.js";
import type { Usage } from "../model/usage.js";

export type RejectReason =
  | "unknown-tool" // name not in `tools`
  | "invalid-json" // block or arguments unparsable even with what was missing added
  | "schema-mismatch" // strict tool whose arguments fail its schema, or arguments refused in any mode
  | "block-too-large" // exceeded maxBlockBytes
  | "unterminated"; // stream ended inside a block that could not be recovered

/**
 * The one event vocabulary of a turn, from the backend to the surface (as vercel/ai's stream-part
 * union is shared by providers, middleware and consumers): every kind of event and the fields
 * every stream gives it, declared here once. The three streams below are views of it that differ
 * only in how a call event names its call (`CallRef`) and in the invariants each keeps. A new kind
 * is one entry here: it is then part of the backend and the assistant stream, and the turn passes
 * it from one to the other as it came (see docs/core.md, "Adding an event kind").
 */
export interface StreamEventFields {
  /**
   * The backend accepted the turn: failures before it are request failures (an HTTP status),
   * after it stream failures. `route`: which of the gateway's routes took the turn.
   */
  readonly "stream-start": {
    readonly model?: string | undefined;
    readonly turnId?: string | undefined;
    readonly route?: string | undefined;
  };
  readonly "text-delta": { readonly delta: string };
  readonly "reasoning-delta": { readonly delta: string };
  readonly "tool-call-start": { readonly name: string };
  /** An append-only fragment of the call's JSON arguments. */
  readonly "tool-call-delta": { readonly delta: string };
  /** The complete call: `arguments` is its JSON arguments text (its deltas, if any, are a prefix). */
  readonly "tool-call-end": { readonly name: string; readonly arguments: string };
  /**
   * A call reader's verdict that a block (or a native call) is no call: only readers emit it, and
   * the gate consumes it. A soft one is followed by a `text-delta` carrying the raw block (an
   * unusable block is plain text; a native call has no raw text and is never given back).
   */
  readonly "tool-call-rejected": {
    readonly reason: RejectReason;
    readonly name?: string | undefined;
    readonly strict: boolean;
    readonly detail: string;
    /** The block as the model wrote it, sentinels included ("" for a native call). */
    readonly raw: string;
    /**
     * Set when this call had already started (`tool-call-start` with this index was emitted) and
     * was then cut off or outgrew its budget: the call is withdrawn and must never be used. A
     * consumer that already forwarded part of it has to fail.
     */
    readonly index?: number | undefined;
  };
  /**
   * A hosted web search the model provider ran (codex's `webSearch` item): `in_progress` when it
   * began, `completed` with its query and action once done. Its results stay with the provider;
   * the answer cites the pages it used (see model/cited-links.ts).
   */
  readonly "web-search": {
    readonly id: string;
    readonly status: "in_progress" | "completed" | "failed";
    readonly query?: string | undefined;
    readonly action?: WebSearchAction | undefined;
  };
  readonly usage: { readonly usage: Usage };
  /**
   * The conversation so far was compacted into `summary` (a compacting turn, before its answer);
   * `usage`: what the compaction itself used, apart from the answer's.
   */
  readonly compaction: { readonly summary: string; readonly usage?: Usage | undefined };
  readonly finish: { readonly finish: Finish };
  /** `route`: the route that refused the turn before it started, when a routing layer knows it. */
  readonly error: { readonly error: GatewayError; readonly route?: string | undefined };
}

export type StreamEventType = keyof StreamEventFields;

/** The kinds that carry one tool call's life. */
export type CallEventType = "tool-call-start" | "tool-call-delta" | "tool-call-end";

/** What a call reader (sentinel parser, native calls) reads and writes: text and calls. */
export type ReadEventType = "text-delta" | CallEventType;

/** How a call event names its call; each stream keeps the fields its consumers key on. */
export interface CallRef {
  /**
   * Correlation id (`call_…`): the Chat `tool_calls[].id` and the Responses `call_id`. The model's
   * own in a native turn; the gate mints one for a call read from text.
   */
  readonly callId: string;
  /**
   * 0-based position of the call in its stream: in a reader's output the order calls started in,
   * in the assistant stream contiguous over the calls forwarded.
   */
  readonly index: number;
  /** Responses output item id (`fc_…`), minted by the gate. */
  readonly id: string;
}

/** What a reader knows of a call it read besides its arguments (the gate's telemetry and policy). */
export interface ReadCall {
  /** The `id` of the block format the call was written in (`json` for a native call). */
  readonly format: string;
  /** True when the model's JSON needed escapes or closing brackets added (see docs/core.md). */
  readonly repaired: boolean;
  /** Soft tools: the schema mismatch that was tolerated. */
  readonly schemaWarning?: string | undefined;
  /** The block as the model wrote it, sentinels included ("" for a native call). */
  readonly raw: string;
}

type Flat<T> = { [K in keyof T]: T[K] } & {};

/**
 * Events of the kinds `K`, each with the fields every stream gives it plus a stream's own
 * (`Extra[kind]`). The streams are derived with it; a consumer may narrow any of them with
 * `Extract<…, { type: "…" }>`.
 */
export type StreamEvent<
  K extends StreamEventType = StreamEventType,
  Extra = object,
> = K extends StreamEventType
  ? Flat<{ readonly type: K } & StreamEventFields[K] & (K extends keyof Extra ? Extra[K] : unknown)>
  : never;

/** The kinds a backend streams and a surface encodes: all but the readers' own. */
type OpenEventType = Exclude<StreamEventType, "tool-call-rejected">;

/**
 * What a backend streams for one turn, in batches. The call events come only from a native turn
 * (the model's own function calls, with the client's tool names) and name their call by `callId`
 * alone: calls may interleave with each other and with text, a call may stream (`tool-call-start`,
 * `tool-call-delta`*) before its `tool-call-end` or arrive as a lone `tool-call-end`.
 */
export type BackendEvent = StreamEvent<
  OpenEventType,
  {
    readonly "tool-call-start": Pick<CallRef, "callId">;
    readonly "tool-call-delta": Pick<CallRef, "callId">;
    readonly "tool-call-end": Pick<CallRef, "callId">;
  }
>;

/**
 * What a call reader (the sentinel parser; native calls re-serialised) hands the call gate. Per
 * call: `tool-call-start`, `tool-call-delta`*, `tool-call-end`, never interleaved with text or
 * other calls, named by the reader's `index`; a `tool-call-rejected` carrying that `index` may end
 * it instead. A `tool-call-end`'s `arguments` are exactly the concatenation of its deltas, a JSON
 * object text. A block that did not close is never a call unless its JSON object did, and a block
 * over the size limit is never a shortened call.
 */
export type ParserEvent = StreamEvent<
  ReadEventType | "tool-call-rejected",
  {
    readonly "tool-call-start": Pick<CallRef, "index"> & {
      /** The model's own call id (native turns); the gate mints one when absent. */
      readonly callId?: string | undefined;
    };
    readonly "tool-call-delta": Pick<CallRef, "index">;
    readonly "tool-call-end": Pick<CallRef, "index"> & ReadCall;
  }
>;

/**
 * What the turn hands the surface, the one stream every HTTP adapter encodes: the backend's kinds
 * under stricter invariants. Tool calls never interleave: a `tool-call-start` is followed by its
 * deltas and its `tool-call-end` before anything else; `index` is 0-based and contiguous in order
 * of appearance, `id` and `callId` are always set, and a `tool-call-end`'s `arguments` are exactly
 * the concatenation of its deltas (never a complete-JSON prefix early). Exactly one `finish` ends a
 * successful stream; an `error` ends a failed one.
 */
export type AssistantEvent = StreamEvent<
  OpenEventType,
  {
    readonly "tool-call-start": CallRef;
    readonly "tool-call-delta": Pick<CallRef, "index">;
    readonly "tool-call-end": CallRef;
  }
>;

export type ToolCall = Extract<AssistantEvent, { type: "tool-call-end" }>;
