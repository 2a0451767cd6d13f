import type { GatewayError } from "@proxy/core";
import type { Context } from "hono";
import { anthropicError } from "../errors.js";

const KEY = "messagesRequestId" as never;

/**
 * The `request-id` every response of this surface carries: the gateway's own request id when the
 * host app set one (so it matches the logs), else a fresh one.
 */
export const requestIdOf = (c: Context): string => {
  const known = c.get(KEY) as string | undefined;
  if (known !== undefined) return known;
  const host = c.get("requestId" as never) as unknown;
  const id =
    typeof host === "string" && host !== "" ? host : `req_${crypto.randomUUID().replaceAll("-", "")}`;
  c.set(KEY, id as never);
  c.header("request-id", id);
  return id;
};

/** Anthropic's error body with its status, plus `retry-after` when the error knows one. */
export const errorResponse = (c: Context, error: GatewayError): Response => {
  const requestId = requestIdOf(c);
  if (error.retryAfterSeconds !== undefined)
    c.header("retry-after", String(Math.ceil(error.retryAfterSeconds)));
  const { status, body } = anthropicError(error, requestId);
  return c.json(body, status as 400);
};
