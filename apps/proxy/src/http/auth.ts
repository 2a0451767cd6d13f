import { createHash, timingSafeEqual } from "node:crypto";
import type { Caller } from "@proxy/core/gateway";
import { BEARER_KEY, type KeyScheme } from "@proxy/http-surface";
import type { Context, MiddlewareHandler } from "hono";
import type { ApiKey } from "../config/api-keys.js";

const digest = (s: string) => createHash("sha256").update(s).digest();

/** The gateway's keys: plain secrets, or keys declared with a name (and limits). */
export type KeyList = ReadonlyArray<string | ApiKey>;

/**
 * API-key auth: each surface says how its clients present the key (`KeyScheme`). Keys are compared as SHA-256 digests with timingSafeEqual, against every key
 * without early exit, so timing reveals neither which key nor how much of it matched. The caller's
 * identity for stored state is that digest (never the key), set as the typed `caller` context variable (`@proxy/http-surface`),
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

/**
 * Checks the key a request presents the way `scheme` (its surface's) reads it, against every
 * configured key; sets the caller, or throws the scheme's refusal. No keys: everyone is let in.
 */
export const keyAuth = (keys: KeyList): ((c: Context, scheme: KeyScheme) => void) => {
  const lookup = keyLookup(keys);
  return (c, scheme) => {
    if (keys.length === 0) {
      c.set("caller", { owner: "" } satisfies Caller);
      return;
    }
    const key = scheme.presentedKey(c);
    const caller = lookup(key ?? "");
    if (caller === undefined) throw scheme.refusal(key);
    c.set("caller", caller);
  };
};

/** `keyAuth` with the OpenAI/Anthropic key (`Authorization: Bearer` or `x-api-key`) as middleware. */
export const bearerAuth = (keys: KeyList): MiddlewareHandler => {
  const check = keyAuth(keys);
  return async (c, next) => {
    check(c, BEARER_KEY);
    return next();
  };
};
