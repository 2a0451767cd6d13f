import { GatewayError, httpStatusFor, isGatewayError } from "@proxy/core";
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { Logger } from "../observability/logger.js";

/** The edge: every failure leaves as OpenAI's error shape with the status mapped from its kind. */
export const errorResponse = (c: Context, error: GatewayError): Response => {
  const status = httpStatusFor(error);
  if (error.retryAfterSeconds !== undefined) c.header("Retry-After", String(error.retryAfterSeconds));
  if (error.kind === "unauthorized") c.header("WWW-Authenticate", 'Bearer realm="proxy"');
  return c.json({ error: error.toOpenAI() }, status as 400);
};

export const onError = (logger: Logger) => (err: Error, c: Context) => {
  if (isGatewayError(err)) return errorResponse(c, err);
  if (err instanceof HTTPException) {
    const kind =
      err.status === 413 ? "invalid_request" : err.status === 401 ? "unauthorized" : "invalid_request";
    const gatewayError = new GatewayError(kind, err.message || "Bad request.", {
      code: err.status === 413 ? "request_too_large" : undefined,
    });
    return c.json({ error: gatewayError.toOpenAI() }, err.status);
  }
  logger.error({ err }, "unhandled error");
  return c.json(
    {
      error: {
        message: "The gateway hit an internal error.",
        type: "server_error",
        param: null,
        code: "internal_error",
      },
    },
    500,
  );
};

export const notFound = (c: Context) =>
  c.json(
    {
      error: {
        message: `Unknown request URL: ${c.req.method} ${c.req.path}.`,
        type: "invalid_request_error",
        param: null,
        code: "unknown_url",
      },
    },
    404,
  );

export const methodNotAllowed = (allow: string) => (c: Context) => {
  c.header("Allow", allow);
  return c.json(
    {
      error: {
        message: `Method ${c.req.method} is not allowed for ${c.req.path}; use ${allow}.`,
        type: "invalid_request_error",
        param: null,
        code: "method_not_allowed",
      },
    },
    405,
  );
};
