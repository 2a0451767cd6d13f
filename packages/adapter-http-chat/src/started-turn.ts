import type { AssistantBatch, TurnSettings, TurnTelemetry } from "@proxy/core";
import type { TurnSession } from "@proxy/http-surface";
import type { ResponseMeta } from "./chat-shapes.js";
import type { ChatTurnPlan } from "./decode-request.js";

/** A turn the backend accepted, handed to one of the encoders. */
export interface ChatTurn {
  readonly plan: ChatTurnPlan;
  readonly session: TurnSession;
  readonly meta: ResponseMeta;
  /** The turn's events after `stream-start` in batches, ending in exactly one `finish` or `error`. */
  readonly batches: AsyncIterable<AssistantBatch>;
}

/** The payload of the SSE comment that ends every stream. */
export const telemetryComment = (telemetry: TurnTelemetry, settings: TurnSettings): string =>
  `: ${JSON.stringify({
    tool_call_count: telemetry.callsEmitted,
    tool_call_truncated: telemetry.truncated,
    stop_after_tools_mode: settings.stopAfterToolsMode,
    output_mode: settings.outputMode,
  })}\n\n`;
