import type { GatewayError } from "@proxy/core";
import type { BackendBatch } from "@proxy/core/gateway";

/**
 * When a codex turn counts as accepted. `turn/start` answers at once, before codex has asked its
 * model provider anything, so its answer is no evidence: a plan limit reached or an upstream
 * refusal only shows up afterwards. The provider has accepted once codex reports an output item
 * of the response (reasoning, message, call: `item/started` of anything but the echoed user
 * message) or the turn maps to an event; until then a failure is still a refusal, which the
 * client gets as an HTTP status instead of an error inside a 200 stream.
 */
export const providerAnswered = (method: string, params: Readonly<Record<string, unknown>>): boolean => {
  if (method !== "item/started") return false;
  const type = (params.item as { type?: unknown } | undefined)?.type;
  return typeof type === "string" && type !== "userMessage";
};

/** The error of a first batch that carries no output (only usage and the failure): a refusal. */
export const refusalOf = (batch: BackendBatch): GatewayError | undefined => {
  let error: GatewayError | undefined;
  for (const event of batch) {
    if (event.type === "error") error = event.error;
    else if (event.type !== "usage") return undefined;
  }
  return error;
};
