import { hostRequestId } from "@proxy/http-surface";
import type { Context } from "hono";

declare module "hono" {
  interface ContextVariableMap {
    /** The `request-id` this surface answered with, once set (so every response of a request carries one). */
    messagesRequestId: string | undefined;
  }
}

/** Anthropic's name for the request id header. */
export const REQUEST_ID_HEADER = "request-id";

/**
 * The `request-id` header every response of this surface carries: the gateway's own request id when
 * the host app set one (so it matches the logs), else a fresh one. Set once per request.
 */
export const setRequestId = (c: Context): void => {
  if (c.get("messagesRequestId") !== undefined) return;
  const id = hostRequestId(c) ?? `req_${crypto.randomUUID().replaceAll("-", "")}`;
  c.set("messagesRequestId", id);
  c.header(REQUEST_ID_HEADER, id);
};
