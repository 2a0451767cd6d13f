/**
 * Per-key usage accounting and the counters per-key limits read. `key` is the key's declared name,
 * or its digest when unnamed; `route` the model the client asked for; `day` a UTC date
 * `YYYY-MM-DD`; `minute` whole minutes since the epoch. Several gateway processes may share one
 * store: every write is an atomic increment, so counts add up across replicas.
 */
export interface UsageCounts {
  readonly requests: number;
  readonly inputTokens: number;
  /** Part of `inputTokens` served from the provider's cache. */
  readonly cachedInputTokens: number;
  readonly outputTokens: number;
  /** Part of `outputTokens` spent on reasoning. */
  readonly reasoningTokens: number;
  readonly toolCalls: number;
  readonly errors: number;
}

export interface UsageRow extends UsageCounts {
  readonly key: string;
  readonly route: string;
  readonly day: string;
}

export interface UsageFilter {
  readonly key?: string | undefined;
  readonly route?: string | undefined;
  /** First UTC day included (`YYYY-MM-DD`). */
  readonly from?: string | undefined;
  /** Last UTC day included. */
  readonly to?: string | undefined;
}

/** What a key has used in the current minute and UTC day (tokens = input, cached included, + output). */
export interface KeyLoad {
  readonly minuteTokens: number;
  readonly dayTokens: number;
}

/** Tokens a key used in one minute (input, cached included, plus output). */
export interface MinuteTokens {
  readonly key: string;
  readonly minute: number;
  readonly tokens: number;
}

export interface UsageStore {
  /**
   * Adds each row's counts to its key/route/day row, and each minute's tokens to that key's minute
   * bucket (kept only for keys with a tokens-per-minute limit), in one transaction.
   */
  recordUsage(rows: ReadonlyArray<UsageRow>, minutes?: ReadonlyArray<MinuteTokens>): Promise<void>;
  /** Rows matching the filter, ordered by day, key, route. */
  usage(filter: UsageFilter): Promise<ReadonlyArray<UsageRow>>;
  /**
   * Counts one request in the key's minute bucket unless it already holds `rpm` of them
   * (atomically, so replicas sharing the store never admit more than `rpm` together).
   */
  admitRequest(key: string, minute: number, rpm: number): Promise<boolean>;
  keyLoad(key: string, minute: number, day: string): Promise<KeyLoad>;
  /** Forgets minute buckets older than `minute`; how many were removed. */
  purgeMinutesBefore(minute: number): Promise<number>;
}

/** The UTC day of an epoch-milliseconds time, as `YYYY-MM-DD`. */
export const utcDay = (epochMs: number): string => new Date(epochMs).toISOString().slice(0, 10);
