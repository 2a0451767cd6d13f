import { createHash, timingSafeEqual } from "node:crypto";
import { CALLER_VARIABLE, type Caller, GatewayError } from "@proxy/core";
import type { MiddlewareHandler } from "hono";
import type { ApiKey } from "../config/api-keys.js";

const digest = (s: string) => createHash("sha256").update(s).digest();

/** The gateway's keys: plain secrets, or keys declared with a name (and limits). */
export type KeyList = ReadonlyArray<string | ApiKey>;

/**
 * API-key auth: the key comes as `Authorization: Bearer <key>` (OpenAI clients, the Anthropic SDK)
 * or as `x-api-key` (Claude Code). Keys are compared as SHA-256 digests with timingSafeEqual, against every key
 * without early exit, so timing reveals neither which key nor how much of it matched. The caller's
 * identity for stored state is that digest (never the key), set as the `CALLER_VARIABLE` variable,
 * with the key's declared name beside it.
 */
export const keyLookup = (keys: KeyList): ((presented: string) => Caller | undefined) => {
  const entries = keys.map((k) => (typeof k === "string" ? { key: k } : k));
  const digests = entries.map((k) => digest(k.key));
  return (presented) => {
    const candidate = digest(presented);
    let found = -1;
    for (const [i, d] of digests.entries()) if (timingSafeEqual(d, candidate)) found = i;
    const entry = entries[found];
    return entry === undefined ? undefined : callerOf(presented, entry.name);
  };
};

export const keyMatcher = (keys: KeyList): ((presented: string) => boolean) => {
  const lookup = keyLookup(keys);
  return (presented) => lookup(presented) !== undefined;
};

/** The caller a matched key stands for: its digest as the owner of stored state (never the key). */
export const callerOf = (key: string, name?: string): Caller => ({
  owner: digest(key).toString("hex"),
  ...(name === undefined ? {} : { name }),
});

export const bearerAuth = (keys: KeyList): MiddlewareHandler => {
  const lookup = keyLookup(keys);
  return async (c, next) => {
    if (keys.length === 0) {
      c.set(CALLER_VARIABLE, { owner: "" } satisfies Caller);
      return next();
    }
    const header = c.req.header("authorization") ?? "";
    const key = /^Bearer\s+(.+)$/i.exec(header.trim())?.[1] ?? c.req.header("x-api-key");
    const caller = lookup(key ?? "");
    if (caller === undefined) {
      throw new GatewayError(
        "unauthorized",
        key !== undefined
          ? "Incorrect API key provided."
          : "Missing bearer authentication in the Authorization header (or an x-api-key header).",
        { code: "invalid_api_key" },
      );
    }
    c.set(CALLER_VARIABLE, caller);
    return next();
  };
};
