import { contextOverflow, type GatewayError, type GatewayErrorKind } from "@proxy/core";
import type { ErrorBodyShaper, ErrorStatusOverride } from "@proxy/http-surface";
import type { ContentfulStatusCode } from "hono/utils/http-status";

/** Anthropic's error `type` for each gateway failure. */
const ANTHROPIC_TYPE: Record<GatewayErrorKind, string> = {
  invalid_request: "invalid_request_error",
  context_length_exceeded: "invalid_request_error",
  unauthorized: "authentication_error",
  not_found: "not_found_error",
  request_too_large: "request_too_large",
  overloaded: "overloaded_error",
  backend_unavailable: "overloaded_error",
  rate_limited: "rate_limit_error",
  timeout: "timeout_error",
  cancelled: "api_error",
  tool_call_validation_failed: "api_error",
  tool_choice_not_satisfied: "api_error",
  backend_auth: "permission_error",
  backend_error: "api_error",
};

/** Where Anthropic's status differs from the kit's table. */
const OVERLOADED = 529 as ContentfulStatusCode;
const ANTHROPIC_STATUS: Partial<Record<GatewayErrorKind, ContentfulStatusCode>> = {
  // Anthropic's own "try again later"; Claude Code and the SDK retry it (OverloadedError).
  overloaded: OVERLOADED,
  backend_unavailable: OVERLOADED,
  // The model broke the tool rules even after the corrective turn: a server-side failure.
  tool_call_validation_failed: 500,
  tool_choice_not_satisfied: 500,
  backend_error: 500,
};

export interface AnthropicErrorBody {
  readonly type: "error";
  readonly error: { readonly type: string; readonly message: string };
}

/** The `error` object of Anthropic's error body and of the stream's `error` event. */
export const anthropicErrorObject = (error: GatewayError): AnthropicErrorBody["error"] => ({
  type: ANTHROPIC_TYPE[error.kind],
  message: error.kind === "context_length_exceeded" ? promptTooLong(error) : error.message,
});

/**
 * Anthropic's words for a full context, which Claude Code reads to compact the conversation and
 * retry: "prompt is too long: N tokens > M maximum" (the numbers when the window is known).
 */
const promptTooLong = (error: GatewayError): string => {
  const overflow = contextOverflow(error);
  return overflow === undefined
    ? `prompt is too long: ${error.message}`
    : `prompt is too long: ${overflow.inputTokens} tokens > ${overflow.contextWindow} maximum`;
};

/** `{type:"error", error:{type, message}}`, the body of every HTTP error of this surface. */
export const anthropicErrorBody: ErrorBodyShaper = (error): AnthropicErrorBody => ({
  type: "error",
  error: anthropicErrorObject(error),
});

export const anthropicStatus: ErrorStatusOverride = (error, status) => ANTHROPIC_STATUS[error.kind] ?? status;
