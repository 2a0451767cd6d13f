import { type TurnObserver, type TurnSummary, type UsageRow, type UsageStore, utcDay } from "@proxy/core";
import type { Logger } from "../observability/logger.js";
import type { KeyMetrics } from "./key-metrics.js";
import { accountLabel, accountOf } from "./key-account.js";

/** What one finished turn adds to its key's usage row. */
export const usageRowOf = (summary: TurnSummary, day: string): UsageRow => {
  const usage = summary.telemetry.usage;
  return {
    key: accountOf(summary.caller),
    route: summary.model,
    day,
    requests: 1,
    inputTokens: usage?.inputTokens ?? 0,
    cachedInputTokens: usage?.cachedInputTokens ?? 0,
    outputTokens: usage?.outputTokens ?? 0,
    reasoningTokens: usage?.reasoningOutputTokens ?? 0,
    toolCalls: summary.telemetry.callsEmitted,
    errors: summary.error === undefined ? 0 : 1,
  };
};

export interface UsageRecorder extends TurnObserver {
  /** Waits for the writes still under way (at shutdown, before the store closes). */
  settle(): Promise<void>;
}

/**
 * Records every turn's usage per key, route and UTC day: one atomic upsert per turn, issued after
 * the response ended (never on the turn's path). Keys with a tokens-per-minute limit also add their
 * tokens to the minute bucket the limit reads. A failed write is logged, never the client's problem.
 */
export const createUsageRecorder = (deps: {
  readonly store: UsageStore;
  readonly metrics: KeyMetrics;
  readonly logger: Logger;
  /** Accounts whose tokens the minute buckets must hold (a `tpm` limit). */
  readonly tracksMinutes: (account: string) => boolean;
  readonly now?: () => number;
}): UsageRecorder => {
  const now = deps.now ?? Date.now;
  const pending = new Set<Promise<void>>();
  return {
    onTurnEnd(summary) {
      const at = now();
      const row = usageRowOf(summary, utcDay(at));
      deps.metrics.observe(accountLabel(row.key, summary.caller?.name !== undefined), row);
      const minute = deps.tracksMinutes(row.key) ? Math.floor(at / 60_000) : undefined;
      const write = deps.store
        .recordUsage(row, minute)
        .catch((err: unknown) => deps.logger.warn({ err, key: row.key }, "usage not recorded"))
        .finally(() => pending.delete(write));
      pending.add(write);
    },
    async settle() {
      await Promise.all([...pending]);
    },
  };
};
