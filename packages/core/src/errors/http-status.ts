import type { GatewayError, GatewayErrorKind } from "./gateway-error.js";

/**
 * The single kind → HTTP status table, used only by HTTP edges (the adapters' sub-apps and the
 * proxy's onError); nothing inside the core decides on statuses.
 */
const STATUS: Record<GatewayErrorKind, number> = {
  invalid_request: 400,
  context_length_exceeded: 400,
  unauthorized: 401,
  not_found: 404,
  tool_call_validation_failed: 422,
  tool_choice_not_satisfied: 422,
  overloaded: 429,
  rate_limited: 429,
  cancelled: 499,
  backend_error: 502,
  backend_auth: 503,
  backend_unavailable: 503,
  timeout: 504,
};

export const httpStatusFor = (error: GatewayError): number => STATUS[error.kind];

/** `{ error: {message, type, param, code} }`, OpenAI's error body. */
export const openAIErrorBody = (error: GatewayError) => ({ error: error.toOpenAI() });
