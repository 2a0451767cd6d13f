import type { MinuteTokens, UsageRow, UsageStore } from "@proxy/core/gateway";
import { clip } from "../observability/clip.js";
import type { Logger } from "../observability/logger.js";

/** Characters of a key, route or database message a log line shows of a row it drops. */
const SHOWN_CHARS = 200;
const shown = (text: string) => clip(text, SHOWN_CHARS);

/** The port's `UsageWriteRejected`, told by name so a second copy of core is recognised too. */
const rejected = (error: unknown): boolean => error instanceof Error && error.name === "UsageWriteRejected";

/**
 * Writes one flush's rows and minute buckets. The batch goes in one transaction; when the store
 * rejects it for a value it can never hold, each row and bucket is written alone, so the rows that
 * can be written are, and the one that cannot is dropped and logged instead of coming back in every
 * later batch (which would stop all usage, and the token limits reading it, for good). A failure
 * that may pass (the database unreachable) gives the whole batch back for the next flush.
 */
export const createUsageWriter = (deps: {
  readonly store: UsageStore;
  readonly logger: Logger;
  /** Gathers a row again, for the next flush. */
  readonly retry: (row: UsageRow) => void;
  readonly retryMinute: (minute: MinuteTokens) => void;
}) => {
  const { store, logger } = deps;
  const giveBack = (err: unknown, rows: ReadonlyArray<UsageRow>, minutes: ReadonlyArray<MinuteTokens>) => {
    logger.warn({ err, rows: rows.length }, "usage not recorded yet; retrying with the next flush");
    for (const row of rows) deps.retry(row);
    for (const m of minutes) deps.retryMinute(m);
  };
  const alone = async (rows: ReadonlyArray<UsageRow>, minutes: ReadonlyArray<MinuteTokens>) => {
    try {
      await store.recordUsage(rows, minutes);
    } catch (err) {
      if (!rejected(err)) return giveBack(err, rows, minutes);
      const what = rows[0] ?? minutes[0];
      logger.error(
        {
          // The database's own message, cut: a constraint's detail may quote the row's values.
          reason: shown((err as Error).message),
          key: what === undefined ? undefined : shown(what.key),
          route: rows[0] === undefined ? undefined : shown(rows[0].route),
          requests: rows[0]?.requests,
        },
        "usage row dropped: the store cannot hold it",
      );
    }
  };
  return async (rows: ReadonlyArray<UsageRow>, minutes: ReadonlyArray<MinuteTokens>): Promise<void> => {
    try {
      await store.recordUsage(rows, minutes);
    } catch (err) {
      if (!rejected(err)) return giveBack(err, rows, minutes);
      for (const row of rows) await alone([row], []);
      for (const m of minutes) await alone([], [m]);
    }
  };
};
