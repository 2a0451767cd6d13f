/**
 * Per-key usage accounting and the counters per-key limits read. `key` is the key's declared name,
 * or its digest when unnamed; `route` the route that answered (the gateway names a bucket for turns
 * no route took); `day` a UTC date
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
  /** Hosted web searches the model provider ran for the key. */
  readonly webSearches: number;
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

/** Where a page of usage rows starts: after this row, in the order rows are listed (day, key, route). */
export interface UsageCursor {
  readonly day: string;
  readonly key: string;
  readonly route: string;
}

export interface UsagePageQuery {
  /** Rows at most (1 or more). */
  readonly limit: number;
  readonly after?: UsageCursor | undefined;
}

export interface UsagePage {
  readonly data: ReadonlyArray<UsageRow>;
  /** More rows match after the last one of `data`. */
  readonly hasMore: boolean;
}

/**
 * A write the store can never make, whatever the retries: a value it cannot hold (a key or route
 * too long for its index, a count that is not a number). A failure of any other kind (the database
 * unreachable, a lock) may pass, and is thrown as it came.
 */
export class UsageWriteRejected extends Error {
  override readonly name = "UsageWriteRejected";
}

/** What a key has used in the current minute and UTC day (tokens = input, cached included, + output). */
export interface KeyLoad {
  readonly minuteTokens: number;
  readonly dayTokens: number;
  /** The hosted web searches of the UTC day. */
  readonly daySearches: number;
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
   * bucket (kept only for keys with a tokens-per-minute limit), in one transaction. Rejects with
   * `UsageWriteRejected` when a row or bucket can never be written (nothing of the batch is then).
   */
  recordUsage(rows: ReadonlyArray<UsageRow>, minutes?: ReadonlyArray<MinuteTokens>): Promise<void>;
  /** One page of the rows matching the filter, ordered by day, key, route. */
  usage(filter: UsageFilter, page: UsagePageQuery): Promise<UsagePage>;
  /** The counts of every row matching the filter, added up. */
  usageTotals(filter: UsageFilter): Promise<UsageCounts>;
  /** Forgets the usage rows of days before `day` (`YYYY-MM-DD`); how many were removed. */
  purgeUsageBefore(day: string): Promise<number>;
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
