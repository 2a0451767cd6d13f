import { type TurnSettings, type TurnTelemetry, unixSeconds } from "@proxy/core/gateway";
import type { SurfaceDeps } from "@proxy/http-surface";
import type { ResponseMeta } from "./chat-shapes.js";

/** The answer's id, time and model, made once the backend accepted the turn. */
export const chatMeta = (deps: SurfaceDeps, model: string): ResponseMeta => ({
  id: deps.ids.next("chatcmpl").replace(/^chatcmpl_/, "chatcmpl-"),
  created: unixSeconds(deps.clock),
  model,
});

/** The payload of the SSE comment that ends every stream. */
export const telemetryComment = (telemetry: TurnTelemetry, settings: TurnSettings): string =>
  `: ${JSON.stringify({
    tool_call_count: telemetry.callsEmitted,
    tool_call_truncated: telemetry.truncated,
    stop_after_tools_mode: settings.stopAfterToolsMode,
    output_mode: settings.outputMode,
  })}\n\n`;
