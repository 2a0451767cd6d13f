import type { Caller } from "@proxy/core/gateway";
import type { ApiKey } from "../config/api-keys.js";
import { callerOf } from "../http/auth.js";

/** The account of a caller without keys configured. */
export const ANONYMOUS = "anonymous";

/**
 * The name usage is accounted under: the key's declared name, else its digest (the owner), which
 * `/admin/usage?key=` also takes. Prometheus labels use `keyLabels` instead.
 */
export const accountOf = (caller: Caller | undefined): string =>
  caller?.name ?? (caller?.owner ? caller.owner : ANONYMOUS);

/**
 * Each caller's label in metrics, which anyone who can read `/metrics` sees: a named key's name;
 * an unnamed key's place in the key list (`key#2` for the second entry, a form no name can take),
 * which says nothing about the secret (a digest prefix would let a short key be guessed offline)
 * and stays the same across restarts while the list does.
 */
export const keyLabels = (keys: ReadonlyArray<ApiKey>): ((caller: Caller | undefined) => string) => {
  const byOwner = new Map(keys.map((k, i) => [callerOf(k.key).owner, k.name ?? `key#${i + 1}`]));
  return (caller) => caller?.name ?? (caller?.owner ? (byOwner.get(caller.owner) ?? "unknown") : ANONYMOUS);
};
