import type { GatewayError, ToolPolicy, TurnRequest } from "@proxy/core";
import type { TurnSettings, TurnSummary, TurnTrace } from "@proxy/core/gateway";
import type { Context } from "hono";

/** The turn as the session starts it: the decoded request (remote images already inlined). */
export interface TracedTurnStart {
  readonly api: string;
  readonly request: TurnRequest;
  readonly tools: ToolPolicy;
  readonly stream: boolean;
  readonly settings: TurnSettings;
}

/**
 * What a request inspector records of one request's turn, besides core's per-attempt trace: the
 * decoded request, the error the client got (in the surface's own body shape) and the summary.
 */
export interface RequestTrace extends TurnTrace {
  onTurnStart(turn: TracedTurnStart): void;
  /** The turn failed: `body` is the error as the surface words it (HTTP body or stream event). */
  onTurnError(error: GatewayError, body: unknown): void;
  onTurnEnd(summary: TurnSummary): void;
}

/** Picks the trace for one request (undefined = this request is not recorded). */
export type RequestTraceFor = (c: Context) => RequestTrace | undefined;
