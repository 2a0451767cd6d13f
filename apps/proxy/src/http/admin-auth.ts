import { createHash, timingSafeEqual } from "node:crypto";
import { GatewayError } from "@proxy/core";
import type { MiddlewareHandler } from "hono";

const digest = (s: string) => createHash("sha256").update(s).digest();

/**
 * The admin endpoints' guard: `Authorization: Bearer <PROXY_ADMIN_KEY>`, compared as SHA-256
 * digests in constant time. API keys do not open admin endpoints, nor the admin key the API.
 * Mount it only when an admin key is set (without one the admin endpoints do not exist).
 */
export const adminAuth = (adminKey: string): MiddlewareHandler => {
  const expected = digest(adminKey);
  return async (c, next) => {
    const presented = /^Bearer\s+(.+)$/i.exec((c.req.header("authorization") ?? "").trim())?.[1];
    if (presented === undefined || !timingSafeEqual(digest(presented), expected))
      throw new GatewayError(
        "unauthorized",
        presented === undefined
          ? "The admin endpoints need `Authorization: Bearer <PROXY_ADMIN_KEY>`."
          : "Incorrect admin key.",
        { code: "invalid_admin_key" },
      );
    return next();
  };
};
