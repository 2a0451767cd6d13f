import { contextOverflow, type GatewayError } from "@proxy/core";
import type { ErrorBodyShaper } from "@proxy/http-surface";

/** Google's canonical status names (google.rpc.Code) for the HTTP statuses the kit answers with. */
const STATUS_NAME: Readonly<Record<number, string>> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  408: "DEADLINE_EXCEEDED",
  409: "ABORTED",
  413: "INVALID_ARGUMENT",
  422: "INVALID_ARGUMENT",
  429: "RESOURCE_EXHAUSTED",
  499: "CANCELLED",
  500: "INTERNAL",
  501: "UNIMPLEMENTED",
  502: "INTERNAL",
  503: "UNAVAILABLE",
  504: "DEADLINE_EXCEEDED",
};

/** The code Google's API answers a missing or wrong key with (a 400, not a 401). */
export const API_KEY_INVALID = "API_KEY_INVALID";

const details = (error: GatewayError): unknown[] => {
  if (error.code === API_KEY_INVALID)
    return [
      {
        "@type": "type.googleapis.com/google.rpc.ErrorInfo",
        reason: API_KEY_INVALID,
        domain: "googleapis.com",
        metadata: { service: "generativelanguage.googleapis.com" },
      },
    ];
  const out: unknown[] = [];
  if (error.param !== null)
    out.push({
      "@type": "type.googleapis.com/google.rpc.BadRequest",
      fieldViolations: [{ field: error.param, description: error.message }],
    });
  if (error.retryAfterSeconds !== undefined)
    out.push({
      "@type": "type.googleapis.com/google.rpc.RetryInfo",
      retryDelay: `${Math.max(0, Math.ceil(error.retryAfterSeconds))}s`,
    });
  return out;
};

/** Google's words for a full context: the input's token count against the model's limit. */
const tokenCountExceeded = (error: GatewayError): string => {
  const overflow = contextOverflow(error);
  return overflow === undefined
    ? "The input token count exceeds the maximum number of tokens allowed."
    : `The input token count (${overflow.inputTokens}) exceeds the maximum number of tokens allowed (${overflow.contextWindow}).`;
};

/** The `error` object of Google's error body: `{code, message, status, details?}`. */
export const geminiError = (error: GatewayError, status: number) => {
  const more = details(error);
  return {
    code: status,
    message: error.kind === "context_length_exceeded" ? tokenCountExceeded(error) : error.message,
    status: STATUS_NAME[status] ?? "UNKNOWN",
    ...(more.length > 0 ? { details: more } : {}),
  };
};

/** Google's error body `{error: {code, message, status, details}}`. */
export const geminiErrorBody: ErrorBodyShaper = (error, status) => ({ error: geminiError(error, status) });
