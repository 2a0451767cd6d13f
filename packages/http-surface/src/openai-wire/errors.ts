import { contextOverflow, type GatewayError, type GatewayErrorKind } from "@proxy/core";

/** OpenAI's error `type` for each gateway failure (Chat Completions and Responses word errors alike). */
const OPENAI_TYPE: Record<GatewayErrorKind, string> = {
  invalid_request: "invalid_request_error",
  not_found: "invalid_request_error",
  unauthorized: "invalid_request_error",
  request_too_large: "invalid_request_error",
  backend_auth: "authentication_error",
  overloaded: "server_error",
  rate_limited: "rate_limit_error",
  context_length_exceeded: "invalid_request_error",
  timeout: "server_error",
  cancelled: "server_error",
  tool_call_validation_failed: "invalid_response_error",
  tool_choice_not_satisfied: "invalid_response_error",
  backend_unavailable: "server_error",
  backend_error: "server_error",
};

/** How one OpenAI API words a full context window (clients that compact look for it). */
export interface ContextFullWording {
  /** The request's conversation field (`messages`, `input`). */
  readonly param: string;
  message(overflow: ReturnType<typeof contextOverflow>): string;
}

/** Chat Completions' words for a full context, with the two counts when the window is known. */
export const CHAT_CONTEXT_FULL: ContextFullWording = {
  param: "messages",
  message: (o) =>
    o === undefined
      ? "This model's maximum context length was exceeded. Please reduce the length of the messages."
      : `This model's maximum context length is ${o.contextWindow} tokens. However, your messages resulted in ${o.inputTokens} tokens. Please reduce the length of the messages.`,
};

/** The `error` object of OpenAI's error body: `{message, type, param, code}`. */
export const openAIError = (error: GatewayError, contextFull: ContextFullWording = CHAT_CONTEXT_FULL) =>
  error.kind === "context_length_exceeded"
    ? {
        message: contextFull.message(contextOverflow(error)),
        type: OPENAI_TYPE[error.kind],
        param: contextFull.param,
        code: "context_length_exceeded",
      }
    : { message: error.message, type: OPENAI_TYPE[error.kind], param: error.param, code: error.code };

/** OpenAI's error body `{error: {message, type, param, code}}` (chat completions and responses). */
export const openAIErrorBody = (error: GatewayError) => ({ error: openAIError(error) });
