import { GatewayError } from "@proxy/core";
import { type BackendMiddleware, type UsageStore, utcDay } from "@proxy/core/gateway";
import type { ApiKey, KeyLimits } from "../config/api-keys.js";
import { callerOf } from "../http/auth.js";
import type { KeyMetrics } from "./key-metrics.js";

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

export interface LimitedKey {
  readonly name: string;
  readonly limits: KeyLimits;
}

/** The keys with limits, by the owner digest of the caller a turn carries. */
export const limitedKeys = (keys: ReadonlyArray<ApiKey>): ReadonlyMap<string, LimitedKey> =>
  new Map(
    keys.flatMap((k) =>
      k.name !== undefined && k.limits !== undefined && Object.keys(k.limits).length > 0
        ? [[callerOf(k.key).owner, { name: k.name, limits: k.limits }] as const]
        : [],
    ),
  );

const refusal = (limit: string, name: string, detail: string, retryAfterMs: number) =>
  new GatewayError(
    "rate_limited",
    `The API key '${name}' reached its ${limit} limit (${detail}); retry in ${Math.ceil(retryAfterMs / 1000)} s.`,
    { code: "key_limit_exceeded", retryAfterSeconds: Math.max(1, Math.ceil(retryAfterMs / 1000)) },
  );

/**
 * Checks a key's limits against the store before its backend turn starts: tokens used this UTC
 * minute (`tpm`) and day (`tokensPerDay`), then counts the request in the minute bucket (`rpm`).
 * Fixed windows in the store, so they survive restarts and hold across replicas sharing it.
 * Returns the refusal, or undefined when the turn may run.
 */
export const checkKeyLimits = async (
  store: UsageStore,
  key: LimitedKey,
  now: number,
  metrics?: KeyMetrics,
  /** The request asks for the hosted web search (`webSearchesPerDay` applies). */
  searches = false,
): Promise<GatewayError | undefined> => {
  const { rpm, tpm, tokensPerDay } = key.limits;
  const webSearchesPerDay = searches ? key.limits.webSearchesPerDay : undefined;
  const minute = Math.floor(now / MINUTE_MS);
  const toNextMinute = (minute + 1) * MINUTE_MS - now;
  const refuse = (limit: string, detail: string, retryAfterMs: number) => {
    metrics?.limited(key.name, limit);
    return refusal(limit, key.name, detail, retryAfterMs);
  };
  if (tpm !== undefined || tokensPerDay !== undefined || webSearchesPerDay !== undefined) {
    const load = await store.keyLoad(key.name, minute, utcDay(now));
    if (webSearchesPerDay !== undefined && load.daySearches >= webSearchesPerDay)
      return refuse(
        "webSearchesPerDay",
        `${load.daySearches} of ${webSearchesPerDay} web searches today (UTC)`,
        DAY_MS - (now % DAY_MS),
      );
    if (tokensPerDay !== undefined && load.dayTokens >= tokensPerDay)
      return refuse(
        "tokensPerDay",
        `${load.dayTokens} of ${tokensPerDay} tokens today (UTC)`,
        DAY_MS - (now % DAY_MS),
      );
    if (tpm !== undefined && load.minuteTokens >= tpm)
      return refuse("tpm", `${load.minuteTokens} of ${tpm} tokens this minute`, toNextMinute);
  }
  if (rpm !== undefined && !(await store.admitRequest(key.name, minute, rpm)))
    return refuse("rpm", `${rpm} requests this minute`, toNextMinute);
  return undefined;
};

/**
 * Per-key limits as a layer: a turn of a limited key is checked first and refused with
 * 429 + Retry-After (in the surface's own error shape) before anything reaches the backend.
 * Keys without limits pass straight through. A store that cannot be read lets the turn run: an
 * unreachable database must not take the gateway down with it.
 */
export const keyLimits = (deps: {
  readonly store: UsageStore;
  readonly keys: ReadonlyMap<string, LimitedKey>;
  readonly metrics?: KeyMetrics;
  readonly now?: () => number;
  /** The store could not be read: the turn runs (limits fail open) and this is told why. */
  readonly onStoreError?: (error: unknown, key: string) => void;
}): BackendMiddleware => {
  const now = deps.now ?? Date.now;
  return {
    // Checked at the first read; the backend's own batches then pass straight through.
    async stream(request, options, next) {
      const owner = request.caller?.owner;
      const key = owner === undefined ? undefined : deps.keys.get(owner);
      if (key === undefined) return next(request, options);
      const searches = request.hostedTools?.webSearch !== undefined;
      const refused = await checkKeyLimits(deps.store, key, now(), deps.metrics, searches).catch(
        (error: unknown) => {
          deps.onStoreError?.(error, key.name);
          return undefined;
        },
      );
      if (refused !== undefined) throw refused;
      return next(request, options);
    },
  };
};
