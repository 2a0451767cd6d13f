import type { TurnSettings, TurnTelemetry } from "@proxy/core/gateway";
import type { Context } from "hono";

/** The response headers a turn's answer carries (a host exposing them to browsers lists these). */
export const TURN_HEADERS = {
  outputMode: "x-proxy-output-mode",
  stopAfterToolsMode: "x-proxy-stop-after-tools-mode",
  toolCallCount: "x-proxy-tool-call-count",
  toolCallTruncated: "x-proxy-tool-call-truncated",
} as const;

/** Headers known before the first byte, on every OpenAI surface: output and stop-after-tools mode. */
export const setModeHeaders = (c: Context, settings: TurnSettings): void => {
  c.header(TURN_HEADERS.outputMode, settings.outputMode);
  c.header(TURN_HEADERS.stopAfterToolsMode, settings.stopAfterToolsMode);
};

/**
 * Non-stream answers also carry the call count and whether calls were dropped by a cap (a stream's
 * headers leave before the calls are known).
 */
export const setToolCallHeaders = (c: Context, telemetry: TurnTelemetry): void => {
  c.header(TURN_HEADERS.toolCallCount, String(telemetry.callsEmitted));
  c.header(TURN_HEADERS.toolCallTruncated, String(telemetry.truncated));
};
