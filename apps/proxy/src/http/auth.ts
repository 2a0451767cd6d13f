import { createHash, timingSafeEqual } from "node:crypto";
import { CALLER_VARIABLE, type Caller, GatewayError } from "@proxy/core";
import type { MiddlewareHandler } from "hono";

const digest = (s: string) => createHash("sha256").update(s).digest();

/**
 * API-key auth: the key comes as `Authorization: Bearer <key>` (OpenAI clients, the Anthropic SDK)
 * or as `x-api-key` (Claude Code). Keys are compared as SHA-256 digests with timingSafeEqual, against every key
 * without early exit, so timing reveals neither which key nor how much of it matched. The caller's
 * identity for stored state is that digest (never the key), set as the `CALLER_VARIABLE` variable.
 */
export const keyMatcher = (keys: ReadonlyArray<string>): ((presented: string) => boolean) => {
  const digests = keys.map(digest);
  return (presented) => {
    const candidate = digest(presented);
    let ok = false;
    for (const d of digests) ok = timingSafeEqual(d, candidate) || ok;
    return ok;
  };
};

/** The caller a matched key stands for: its digest as the owner of stored state (never the key). */
export const callerOf = (key: string): Caller => ({ owner: digest(key).toString("hex") });

export const bearerAuth = (keys: ReadonlyArray<string>): MiddlewareHandler => {
  const matches = keyMatcher(keys);
  return async (c, next) => {
    if (keys.length === 0) {
      c.set(CALLER_VARIABLE, { owner: "" } satisfies Caller);
      return next();
    }
    const header = c.req.header("authorization") ?? "";
    const key = /^Bearer\s+(.+)$/i.exec(header.trim())?.[1] ?? c.req.header("x-api-key");
    if (!matches(key ?? "")) {
      throw new GatewayError(
        "unauthorized",
        key !== undefined
          ? "Incorrect API key provided."
          : "Missing bearer authentication in the Authorization header (or an x-api-key header).",
        { code: "invalid_api_key" },
      );
    }
    c.set(CALLER_VARIABLE, callerOf(key ?? ""));
    return next();
  };
};
