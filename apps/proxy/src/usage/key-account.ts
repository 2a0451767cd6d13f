import type { Caller } from "@proxy/core";

/** The account of a caller without keys configured. */
export const ANONYMOUS = "anonymous";

/**
 * The name usage is accounted under: the key's declared name, else its digest (the owner), which
 * `/admin/usage?key=` also takes. Prometheus labels use `accountLabel` instead.
 */
export const accountOf = (caller: Caller | undefined): string =>
  caller?.name ?? (caller?.owner ? caller.owner : ANONYMOUS);

/** Digests are cut to 12 hex characters in metric labels; names stay whole (both bounded by config). */
export const accountLabel = (account: string, named: boolean): string =>
  named || account === ANONYMOUS ? account : account.slice(0, 12);
