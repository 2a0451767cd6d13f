import {
  type Caller,
  type MinuteTokens,
  type TurnObserver,
  type TurnSummary,
  type UsageCounts,
  type UsageRow,
  type UsageStore,
  utcDay,
} from "@proxy/core/gateway";
import type { Logger } from "../observability/logger.js";
import { accountOf } from "./key-account.js";
import type { KeyMetrics } from "./key-metrics.js";
import { createUsageWriter } from "./usage-writer.js";

/** How often the counts gathered in memory are written (one transaction per flush). */
export const USAGE_FLUSH_MS = 1000;

const DAY_MS = 86_400_000;

type Counts = { -readonly [K in keyof UsageCounts]: number };

/** What one finished turn adds to its key's usage. */
export const turnCounts = (summary: TurnSummary): UsageCounts => {
  const usage = summary.telemetry.usage;
  return {
    requests: 1,
    inputTokens: usage?.inputTokens ?? 0,
    cachedInputTokens: usage?.cachedInputTokens ?? 0,
    outputTokens: usage?.outputTokens ?? 0,
    reasoningTokens: usage?.reasoningOutputTokens ?? 0,
    toolCalls: summary.telemetry.callsEmitted,
    webSearches: summary.telemetry.webSearches,
    errors: summary.error === undefined ? 0 : 1,
  };
};

const add = (into: Counts, counts: UsageCounts) => {
  into.requests += counts.requests;
  into.inputTokens += counts.inputTokens;
  into.cachedInputTokens += counts.cachedInputTokens;
  into.outputTokens += counts.outputTokens;
  into.reasoningTokens += counts.reasoningTokens;
  into.toolCalls += counts.toolCalls;
  into.webSearches += counts.webSearches;
  into.errors += counts.errors;
};

export interface UsageRecorder extends TurnObserver {
  /** Writes what is gathered now and waits for it (admin reads, shutdown). */
  settle(): Promise<void>;
  /** Stops the periodic flush after a last one. */
  close(): Promise<void>;
}

/**
 * Records every turn's usage per key, route and UTC day. A finished turn only adds its counts to
 * a row in memory; every `flushMs` the rows gathered are added to the store in one transaction
 * (atomic increments, so replicas add up), so the store sees one write per second, not one per
 * turn. Keys with a tokens-per-minute limit also gather their tokens per minute, and a turn of a
 * key with token limits is written at once, so the next limit check counts it. A write that
 * failed is retried with the next flush (usage-writer.ts keeps one bad row from holding up the
 * others); either way it is logged, never the client's problem.
 */
export const createUsageRecorder = (deps: {
  readonly store: UsageStore;
  readonly metrics: KeyMetrics;
  readonly logger: Logger;
  /** Accounts whose tokens the minute buckets must hold (a `tpm` limit). */
  readonly tracksMinutes: (account: string) => boolean;
  /** Accounts with token limits: their turns are written at once, for the next check to see. */
  readonly writesAtOnce: (account: string) => boolean;
  /** The route a turn no route took is accounted under (from the model asked for; bounded). */
  readonly routeOf: (model: string) => string;
  /** The caller's label in metrics (its key's name, or an id that reveals nothing of the key). */
  readonly labelOf: (caller: Caller | undefined) => string;
  readonly now?: () => number;
  readonly flushMs?: number;
}): UsageRecorder => {
  const now = deps.now ?? Date.now;
  let rows = new Map<string, UsageRow & Counts>();
  let minutes = new Map<string, MinuteTokens & { tokens: number }>();
  let writing: Promise<void> = Promise.resolve();
  // The UTC day of the last turn, kept until the clock leaves it (not a Date and an ISO string per turn).
  let dayStart = Number.NaN;
  let dayName = "";
  const dayOf = (at: number): string => {
    if (!(at >= dayStart && at < dayStart + DAY_MS)) {
      dayStart = at - (at % DAY_MS);
      dayName = utcDay(at);
    }
    return dayName;
  };

  const gather = (key: string, route: string, day: string, counts: UsageCounts) => {
    const id = `${key}\u0000${route}\u0000${day}`;
    const row = rows.get(id);
    if (row === undefined) rows.set(id, { key, route, day, ...counts });
    else add(row, counts);
  };
  const gatherMinute = (key: string, minute: number, tokens: number) => {
    const id = `${key}\u0000${minute}`;
    const bucket = minutes.get(id);
    if (bucket === undefined) minutes.set(id, { key, minute, tokens });
    else bucket.tokens += tokens;
  };
  const write = createUsageWriter({
    store: deps.store,
    logger: deps.logger,
    retry: (row) => gather(row.key, row.route, row.day, row),
    retryMinute: (m) => gatherMinute(m.key, m.minute, m.tokens),
  });

  const flush = (): Promise<void> => {
    if (rows.size === 0 && minutes.size === 0) return writing;
    const batch = [...rows.values()];
    const batchMinutes = [...minutes.values()];
    rows = new Map();
    minutes = new Map();
    writing = writing.then(() => write(batch, batchMinutes));
    return writing;
  };
  const timer = setInterval(() => void flush(), deps.flushMs ?? USAGE_FLUSH_MS);
  timer.unref();

  return {
    onTurnEnd(summary) {
      const at = now();
      const key = accountOf(summary.caller);
      const counts = turnCounts(summary);
      deps.metrics.observe(deps.labelOf(summary.caller), counts);
      // The route that answered (after fallbacks); for a turn none took, the route its model names.
      gather(key, summary.telemetry.route ?? deps.routeOf(summary.model), dayOf(at), counts);
      if (deps.tracksMinutes(key))
        gatherMinute(key, Math.floor(at / 60_000), counts.inputTokens + counts.outputTokens);
      if (deps.writesAtOnce(key)) void flush();
    },
    settle: flush,
    async close() {
      clearInterval(timer);
      await flush();
    },
  };
};
