import { GatewayError, type GatewayErrorKind, INPUT_TOO_LONG, toGatewayError } from "@proxy/core";
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { openAIErrorBody } from "../openai-wire/errors.js";

/** The one kind → HTTP status table. Core knows kinds and `retryable`; statuses live at the edge. */
const STATUS: Record<GatewayErrorKind, ContentfulStatusCode> = {
  invalid_request: 400,
  context_length_exceeded: 400,
  unauthorized: 401,
  not_found: 404,
  request_too_large: 413,
  tool_call_validation_failed: 422,
  tool_choice_not_satisfied: 422,
  overloaded: 429,
  rate_limited: 429,
  cancelled: 499 as ContentfulStatusCode,
  backend_error: 502,
  // Only the operator can fix it (log codex in, set a key): a status clients do not retry.
  backend_auth: 403,
  backend_unavailable: 503,
  timeout: 504,
};

export const httpStatusFor = (error: GatewayError): ContentfulStatusCode => STATUS[error.kind];

/**
 * Turns a failure into the body one surface speaks (OpenAI, Anthropic, Gemini…). Used for HTTP
 * error answers and for a stream's terminal error, so a surface defines its error shape once.
 */
export type ErrorBodyShaper = (error: GatewayError, status: ContentfulStatusCode) => unknown;

/**
 * A surface's own status where its API's differs from the table (Anthropic answers an overload with
 * 529, not 429); it receives the table's status and returns the one to send.
 */
export type ErrorStatusOverride = (error: GatewayError, status: ContentfulStatusCode) => ContentfulStatusCode;

export interface HttpError {
  readonly status: ContentfulStatusCode;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: unknown;
}

/**
 * The one error map: status from the kind, the surface's body, and the headers every surface owes
 * (`Retry-After` in whole seconds as HTTP requires, `WWW-Authenticate` on 401).
 */
export const toHttpError = (
  error: unknown,
  shape: ErrorBodyShaper = openAIErrorBody,
  statusFor?: ErrorStatusOverride,
): HttpError => {
  const failure = toGatewayError(error);
  const status = statusFor ? statusFor(failure, httpStatusFor(failure)) : httpStatusFor(failure);
  const headers: Record<string, string> = {};
  if (failure.retryAfterSeconds !== undefined)
    headers["Retry-After"] = String(Math.max(0, Math.ceil(failure.retryAfterSeconds)));
  if (failure.kind === "unauthorized") headers["WWW-Authenticate"] = 'Bearer realm="proxy"';
  return { status, headers, body: shape(failure, status) };
};

/** `toHttpError` answered on a Hono context (headers already set on `c` are kept). */
/** A backend's "input too long" names the surface's own conversation field (`inputParam`). */
export const namingInput = (error: GatewayError, param: string | undefined): GatewayError =>
  error.code === INPUT_TOO_LONG && error.param === null && param !== undefined
    ? new GatewayError(error.kind, error.message, { param, code: error.code, cause: error.cause })
    : error;

export const errorResponse = (
  c: Context,
  error: unknown,
  shape: ErrorBodyShaper = openAIErrorBody,
  statusFor?: ErrorStatusOverride,
): Response => {
  const http = toHttpError(error, shape, statusFor);
  return c.json(http.body as object, http.status, http.headers);
};
