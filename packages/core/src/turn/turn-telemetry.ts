import type { GatewayError } from "../errors/gateway-error.js";
import type { FinishReason } from "../model/finish-reason.js";
import type { OutputMode } from "./turn-settings.js";

/** What happened in a turn, returned as data (the core never logs). */
export interface TurnTelemetry {
  toolNames: string[];
  /** Complete blocks the parser recognised (emitted or not). */
  callsDetected: number;
  callsEmitted: number;
  /** Blocks that could not be parsed (invalid JSON, unterminated, too large). */
  parseFailures: number;
  repairs: number;
  strictFailures: number;
  schemaWarnings: number;
  /** Earlier calls the client echoed back (D3). */
  echoedCalls: number;
  /** Corrective backend turns run. */
  retries: number;
  /** Calls dropped because of toolBlockMax / parallel_tool_calls:false. */
  truncated: boolean;
  deduped: number;
  /** The backend turn was stopped after the tool calls (stop-after-tools). */
  stoppedEarly: boolean;
  backendTurnId?: string | undefined;
  /** How tools reached the model in this turn. */
  toolMode?: "native" | "prompt" | undefined;
}

export const createTelemetry = (toolNames: string[]): TurnTelemetry => ({
  toolNames,
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
});

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
}

export interface TurnObserver {
  onTurnEnd(summary: TurnSummary): void;
}
