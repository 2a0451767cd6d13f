import type { ConversationOwners } from "@proxy/core/gateway";
import type { Logger } from "../observability/logger.js";

/** This replica's side of the owners table: what it holds live, written through to the store. */
export interface Ownership {
  /** The codex backend's listener: `key` became continuable here (`live`) or stopped being so. */
  readonly observe: (key: string, live: boolean) => void;
  readonly holds: (key: string) => boolean;
  /** The index of the last of `keys` held here, -1 for none. */
  readonly lastHeld: (keys: ReadonlyArray<string>) => number;
  /** Settles once every write begun so far has (a turn's end waits for its thread's record). */
  readonly settled: () => Promise<void>;
}

/**
 * Writes are chained per key (a record and a release of one key never overtake each other) and
 * never fail a turn: a store that does not answer costs the other replicas the hint, nothing else.
 */
export const createOwnership = (owners: ConversationOwners, self: string, logger: Logger): Ownership => {
  const held = new Set<string>();
  const chains = new Map<string, Promise<void>>();
  const pending = new Set<Promise<void>>();
  const write = (key: string, work: () => Promise<unknown>) => {
    const done = (chains.get(key) ?? Promise.resolve()).then(work).then(
      () => undefined,
      (err: unknown) => logger.warn({ err }, "could not record a live conversation's owner in the store"),
    );
    chains.set(key, done);
    pending.add(done);
    void done.then(() => {
      pending.delete(done);
      if (chains.get(key) === done) chains.delete(key);
    });
  };
  return {
    observe(key, live) {
      if (live) {
        held.add(key);
        write(key, () => owners.record(key, self, Date.now()));
      } else {
        held.delete(key);
        write(key, () => owners.release(key, self));
      }
    },
    holds: (key) => held.has(key),
    lastHeld(keys) {
      for (let i = keys.length - 1; i >= 0; i--) if (held.has(keys[i] as string)) return i;
      return -1;
    },
    settled: async () => {
      if (pending.size > 0) await Promise.all(pending);
    },
  };
};
