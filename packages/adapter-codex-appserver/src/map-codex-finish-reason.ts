import type { Finish } from "@proxy/core";

/**
 * `turn/completed` → `turn.status` as a unified finish. An interrupted turn is a normal stop (we
 * only interrupt on the client's abort); `failed` never becomes a finish — it is reported as an
 * `error` event built by `mapCodexTurnError`.
 */
export const mapCodexFinishReason = (status: unknown): Finish => {
  switch (status) {
    case "completed":
      return { reason: "stop", raw: "completed" };
    case "interrupted":
      return { reason: "stop", raw: "interrupted" };
    default:
      return { reason: "error", raw: typeof status === "string" ? status : "unknown" };
  }
};
