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
 * What changed since the last write is written together, one statement for the records and one for
 * the releases: a turn that parks a durable thread makes its conversation and each of its turns'
 * beginnings continuable at once, and they are one write, not one each. Writes run one after
 * another (a record and a later release of one key never overtake each other; of two changes of a
 * key before a write, the later is the one written) and never fail a turn: a store that does not
 * answer costs the other replicas the hint, nothing else.
 */
export const createOwnership = (owners: ConversationOwners, self: string, logger: Logger): Ownership => {
  const held = new Set<string>();
  /** Changes not yet being written: key → live. */
  let changes = new Map<string, boolean>();
  let tail: Promise<void> = Promise.resolve();
  let queued = false;
  const write = async () => {
    queued = false;
    const batch = changes;
    changes = new Map();
    const recorded: string[] = [];
    const released: string[] = [];
    for (const [key, live] of batch) (live ? recorded : released).push(key);
    try {
      if (released.length > 0) await owners.release(released, self);
      if (recorded.length > 0) await owners.record(recorded, self, Date.now());
    } catch (err) {
      logger.warn({ err }, "could not record a live conversation's owner in the store");
    }
  };
  return {
    observe(key, live) {
      if (live) held.add(key);
      else held.delete(key);
      changes.delete(key); // re-inserted: the newest change of a key is the one written
      changes.set(key, live);
      if (queued) return;
      queued = true;
      tail = tail.then(write);
    },
    holds: (key) => held.has(key),
    lastHeld(keys) {
      for (let i = keys.length - 1; i >= 0; i--) if (held.has(keys[i] as string)) return i;
      return -1;
    },
    settled: () => tail,
  };
};
