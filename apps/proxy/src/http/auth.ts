import { createHash, timingSafeEqual } from "node:crypto";
import { CALLER_VARIABLE, type Caller } from "@proxy/core";
import { BEARER_KEY, type KeyScheme } from "@proxy/http-surface";
import type { Context, MiddlewareHandler } from "hono";

const digest = (s: string) => createHash("sha256").update(s).digest();

/**
 * API-key auth: each surface says how its clients present the key (`KeyScheme`). Keys are compared as SHA-256 digests with timingSafeEqual, against every key
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

/**
 * Checks the key a request presents the way `scheme` (its surface's) reads it, against every
 * configured key; sets the caller, or throws the scheme's refusal. No keys: everyone is let in.
 */
export const keyAuth = (keys: ReadonlyArray<string>): ((c: Context, scheme: KeyScheme) => void) => {
  const matches = keyMatcher(keys);
  return (c, scheme) => {
    if (keys.length === 0) {
      c.set(CALLER_VARIABLE, { owner: "" } satisfies Caller);
      return;
    }
    const key = scheme.presentedKey(c);
    if (!matches(key ?? "")) throw scheme.refusal(key);
    c.set(CALLER_VARIABLE, callerOf(key ?? ""));
  };
};

/** `keyAuth` with the OpenAI/Anthropic key (`Authorization: Bearer` or `x-api-key`) as middleware. */
export const bearerAuth = (keys: ReadonlyArray<string>): MiddlewareHandler => {
  const check = keyAuth(keys);
  return async (c, next) => {
    check(c, BEARER_KEY);
    return next();
  };
};
