import { type GatewayError, type GatewayErrorKind, httpStatusFor } from "@proxy/core";

/** Anthropic's error `type` for each gateway failure, and the status where it differs from the kit's. */
const ANTHROPIC: Record<GatewayErrorKind, { readonly type: string; readonly status?: number }> = {
  invalid_request: { type: "invalid_request_error" },
  context_length_exceeded: { type: "invalid_request_error" },
  unauthorized: { type: "authentication_error" },
  not_found: { type: "not_found_error" },
  // Anthropic's own status for "try again later"; Claude Code and the SDK retry it.
  overloaded: { type: "overloaded_error", status: 529 },
  rate_limited: { type: "rate_limit_error" },
  timeout: { type: "timeout_error" },
  cancelled: { type: "api_error" },
  // The model broke the tool rules even after the corrective turn: a server-side failure.
  tool_call_validation_failed: { type: "api_error", status: 500 },
  tool_choice_not_satisfied: { type: "api_error", status: 500 },
  backend_auth: { type: "api_error" },
  backend_unavailable: { type: "overloaded_error", status: 529 },
  backend_error: { type: "api_error", status: 500 },
};

const TOO_LARGE = { type: "request_too_large", status: 413 };

export interface AnthropicErrorBody {
  readonly type: "error";
  readonly error: { readonly type: string; readonly message: string };
  readonly request_id?: string;
}

/** `{type:"error", error:{type, message}}` with its HTTP status: the Messages surface's error shape. */
export const anthropicError = (error: GatewayError, requestId?: string) => {
  const entry = error.code === "request_too_large" ? TOO_LARGE : ANTHROPIC[error.kind];
  const body: AnthropicErrorBody = {
    type: "error",
    error: { type: entry.type, message: error.message },
    ...(requestId === undefined ? {} : { request_id: requestId }),
  };
  return { status: entry.status ?? httpStatusFor(error), body };
};
