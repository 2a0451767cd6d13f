import type {
  AssistantEvent,
  FinishReason,
  GatewayError,
  OutputMode,
  TurnSettings,
  TurnTelemetry,
} from "@proxy/core";
import type { Context } from "hono";
import type { ResponseMeta } from "./chat-shapes.js";
import type { ChatTurnPlan } from "./decode-request.js";

/** How a response ended, for the observer. */
export interface TurnOutcome {
  readonly finish?: FinishReason | undefined;
  readonly error?: GatewayError | undefined;
  readonly ttfbMs?: number | undefined;
}

/** A turn whose backend accepted the request (`stream-start` seen), handed to one of the encoders. */
export interface StartedTurn {
  readonly plan: ChatTurnPlan;
  readonly settings: TurnSettings;
  readonly meta: ResponseMeta;
  /** The rest of the turn's events, after `stream-start`. */
  readonly events: AsyncIterator<AssistantEvent>;
  readonly telemetry: () => TurnTelemetry;
  /** Stop the backend turn (client went away). */
  readonly abort: () => void;
  /** The client went away (or the turn was stopped): nothing more can be delivered. */
  readonly cancelled: () => boolean;
  /** Idle milliseconds before a stream sends a `: ping` comment; 0 = never. */
  readonly keepAliveMs: number;
  /** Milliseconds since the request arrived, on the injected clock. */
  readonly elapsedMs: () => number;
  /** Report the end of the response to the observer; only the first call counts. */
  readonly end: (outcome: TurnOutcome) => void;
}

/** Headers known before the first byte: the output mode and the stop-after-tools mode (seed 001). */
export const setModeHeaders = (c: Context, outputMode: OutputMode, settings: TurnSettings): void => {
  c.header("x-proxy-output-mode", outputMode);
  c.header("x-proxy-stop-after-tools-mode", settings.stopAfterToolsMode);
};

/** Non-stream responses also carry the call count and whether calls were dropped by a cap. */
export const setToolCallHeaders = (c: Context, telemetry: TurnTelemetry): void => {
  c.header("x-proxy-tool-call-count", String(telemetry.callsEmitted));
  c.header("x-proxy-tool-call-truncated", String(telemetry.truncated));
};

/** The payload of the SSE comment that ends every stream. */
export const telemetryComment = (telemetry: TurnTelemetry, settings: TurnSettings): string =>
  `: ${JSON.stringify({
    tool_call_count: telemetry.callsEmitted,
    tool_call_truncated: telemetry.truncated,
    stop_after_tools_mode: settings.stopAfterToolsMode,
    output_mode: settings.outputMode,
  })}\n\n`;

/** The next event of a turn, or undefined at its end. */
export const nextEvent = async (
  events: AsyncIterator<AssistantEvent>,
): Promise<AssistantEvent | undefined> => {
  const r = await events.next();
  return r.done ? undefined : r.value;
};
