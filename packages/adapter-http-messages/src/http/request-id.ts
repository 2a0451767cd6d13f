import type { Context } from "hono";

const KEY = "messagesRequestId" as never;

/** Anthropic's name for the request id header. */
export const REQUEST_ID_HEADER = "request-id";

/**
 * The `request-id` header every response of this surface carries: the gateway's own request id when
 * the host app set one (so it matches the logs), else a fresh one. Set once per request.
 */
export const setRequestId = (c: Context): void => {
  if (c.get(KEY) !== undefined) return;
  const host = c.get("requestId" as never) as unknown;
  const id =
    typeof host === "string" && host !== "" ? host : `req_${crypto.randomUUID().replaceAll("-", "")}`;
  c.set(KEY, id as never);
  c.header(REQUEST_ID_HEADER, id);
};
