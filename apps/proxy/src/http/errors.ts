import { GatewayError, isGatewayError } from "@proxy/core";
import { errorResponse, toHttpError } from "@proxy/http-surface";
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { Logger } from "../observability/logger.js";

export const onError = (logger: Logger) => (err: Error, c: Context) => {
  if (isGatewayError(err)) return errorResponse(c, err);
  if (err instanceof HTTPException) {
    const kind =
      err.status === 413 ? "request_too_large" : err.status === 401 ? "unauthorized" : "invalid_request";
    // Hono's own status stands (it may be one no error kind maps to); body and headers are ours.
    const http = toHttpError(new GatewayError(kind, err.message || "Bad request."));
    return c.json(http.body as object, err.status, http.headers);
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
