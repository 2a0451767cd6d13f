import type { TurnSettings, TurnTelemetry } from "@proxy/core";
import type { Context } from "hono";

/** Headers known before the first byte, on every OpenAI surface: output and stop-after-tools mode. */
export const setModeHeaders = (c: Context, settings: TurnSettings): void => {
  c.header("x-proxy-output-mode", settings.outputMode);
  c.header("x-proxy-stop-after-tools-mode", settings.stopAfterToolsMode);
};

/**
 * Non-stream answers also carry the call count and whether calls were dropped by a cap (a stream's
 * headers leave before the calls are known).
 */
export const setToolCallHeaders = (c: Context, telemetry: TurnTelemetry): void => {
  c.header("x-proxy-tool-call-count", String(telemetry.callsEmitted));
  c.header("x-proxy-tool-call-truncated", String(telemetry.truncated));
};
