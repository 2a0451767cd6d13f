import type { GatewayError } from "../errors/gateway-error.js";
import type { FinishReason } from "../model/finish-reason.js";
import type { Usage } from "../model/usage.js";
import type { Caller } from "../ports/response-store.js";
import type { OutputMode } from "./turn-settings.js";

/** What happened in a turn, returned as an immutable result (the core never logs). */
export interface TurnTelemetry {
  /** The tools offered to the model. */
  readonly toolNames: ReadonlyArray<string>;
  /** The call ids of the calls sent to the client, in order. */
  readonly callIds: ReadonlyArray<string>;
  /** Complete blocks the parser recognised (emitted or not). */
  readonly callsDetected: number;
  readonly callsEmitted: number;
  /** Blocks that could not be parsed (invalid JSON, unterminated, too large). */
  readonly parseFailures: number;
  /** Calls whose arguments needed JSON repair. */
  readonly repairs: number;
  readonly strictFailures: number;
  /** Soft-tool calls whose arguments did not match their schema (sent anyway). */
  readonly schemaWarnings: number;
  /** Earlier calls the client sent back in its history. */
  readonly echoedCalls: number;
  /** Corrective backend turns run. */
  readonly retries: number;
  /** Calls dropped because of toolBlockMax / parallel_tool_calls:false. */
  readonly truncated: boolean;
  /** Calls dropped as repeats of an earlier identical call. */
  readonly deduped: number;
  /** The backend turn was stopped after the tool calls (stop-after-tools). */
  readonly stoppedEarly: boolean;
  readonly backendTurnId?: string | undefined;
  /** The route that took the turn (or refused it), as the backend's `stream-start` or `error` named it. */
  readonly route?: string | undefined;
  /**
   * The backend failed after every call the client saw was complete: the turn finished with those
   * calls (`tool_calls`) and this failure is kept here for logs and metrics only.
   */
  readonly failureAfterCalls?: GatewayError | undefined;
  /** The names of the emitted calls, in order (metrics bound the label set). */
  readonly calledTools: ReadonlyArray<string>;
  /** Repaired JSON and tolerated soft-schema mismatches, for the request's log (at most 20). */
  readonly toolWarnings: ReadonlyArray<ToolWarning>;
  /** Hosted web searches the model provider ran in the turn (completed `web-search` events). */
  readonly webSearches: number;
  /** How tools reached the model in this turn. */
  readonly toolMode?: "native" | "prompt" | undefined;
  /**
   * The usage of all of the turn's attempts (also when the turn failed after one): as the backend
   * reported it, or estimated with the gateway's tokenizer (`estimated`) for an attempt the backend
   * accepted and never reported on (the client left mid-stream, the backend failed).
   */
  readonly usage?: Usage | undefined;
}

/** The counters a running turn writes; `runTurn` hands out frozen snapshots of them. */
export type TurnCounters = { -readonly [K in keyof TurnTelemetry]: TurnTelemetry[K] } & {
  callIds: string[];
  calledTools: string[];
  toolWarnings: ToolWarning[];
};

export const createTelemetry = (toolNames: ReadonlyArray<string>): TurnCounters => ({
  toolNames,
  callIds: [],
  callsDetected: 0,
  callsEmitted: 0,
  parseFailures: 0,
  repairs: 0,
  strictFailures: 0,
  schemaWarnings: 0,
  echoedCalls: 0,
  retries: 0,
  truncated: false,
  deduped: 0,
  stoppedEarly: false,
  webSearches: 0,
  calledTools: [],
  toolWarnings: [],
});

/** One call the gateway accepted with a caveat. */
export interface ToolWarning {
  readonly tool: string;
  readonly kind: "json-repaired" | "soft-schema";
  readonly detail?: string | undefined;
}

/** Enough to see a pattern in a log line without letting one reply flood it. */
export const MAX_TOOL_WARNINGS = 20;

/** One line of per-request facts for the composition root's logs and metrics. */
export interface TurnSummary {
  /** The HTTP surface that served the turn (`chat`, `responses`, …). */
  readonly api: string;
  readonly model: string;
  readonly stream: boolean;
  readonly outputMode: OutputMode;
  readonly telemetry: TurnTelemetry;
  readonly finish?: FinishReason | undefined;
  readonly error?: GatewayError | undefined;
  readonly ttfbMs?: number | undefined;
  /** Who asked (the auth middleware's caller), for per-key accounting. */
  readonly caller?: Caller | undefined;
  /**
   * Milliseconds since the request arrived at which the turn reached each stage (for traces
   * derived after the fact): decoded = `start()` called, accepted = the backend's first batch.
   */
  readonly timings?: TurnTimings | undefined;
}

/** Offsets in ms from the request's arrival (the session's clock); absent = not reached. */
export interface TurnTimings {
  /** The session's clock reading when the request arrived (epoch ms with the system clock). */
  readonly arrivedAt: number;
  readonly decodedMs?: number | undefined;
  readonly acceptedMs?: number | undefined;
  readonly endedMs: number;
}

export interface TurnObserver {
  onTurnEnd(summary: TurnSummary): void;
}
