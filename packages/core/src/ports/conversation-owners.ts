/**
 * Which gateway replica holds the live backend thread of a conversation, so a turn that lands on
 * another replica can be passed to the one that can continue it (docs/state.md, "Replicas").
 * `key` is the backend's opaque conversation key (it already includes the caller: no other
 * caller's request derives it); `owner` is how other replicas reach the holder (its URL).
 * Several gateway processes share one table; a row is a hint, never a promise: the owner may
 * have let the thread go or died, and the caller then runs the turn itself.
 */
export interface ConversationOwner {
  readonly key: string;
  readonly owner: string;
}

export interface ConversationOwners {
  /**
   * `owner` now holds each conversation of `keys` (a newer record of the same key replaces it):
   * one write for everything a turn made continuable (its thread's conversation and, with kept
   * edits, where each of its turns began).
   */
  record(keys: ReadonlyArray<string>, owner: string, now: number): Promise<void>;
  /**
   * The owned key of `keys` that comes last in the list (callers list a conversation's prefixes
   * oldest first, so that is the longest conversation someone holds), or undefined.
   */
  lookup(keys: ReadonlyArray<string>): Promise<ConversationOwner | undefined>;
  /** `owner` let each of `keys` go; a newer owner's record of the same key is kept. */
  release(keys: ReadonlyArray<string>, owner: string): Promise<void>;
  /** Every record of `owner` (a replica that starts or stops holds nothing); how many went. */
  releaseOwner(owner: string): Promise<number>;
  /**
   * Every record made before `before` (epoch ms), whoever made it: what a replica killed outright
   * left behind, once no thread can be that idle and still live; how many went.
   */
  releaseStale(before: number): Promise<number>;
}

/** The table in memory: replicas of one process (tests), or a gateway without a shared store. */
export const createMemoryConversationOwners = (): ConversationOwners => {
  const rows = new Map<string, { readonly owner: string; readonly at: number }>();
  return {
    record: async (keys, owner, now) => {
      for (const key of keys) {
        rows.delete(key); // re-inserted last: the map stays in the order of the records' times
        rows.set(key, { owner, at: now });
      }
    },
    lookup: async (keys) => {
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i] as string;
        const row = rows.get(key);
        if (row !== undefined) return { key, owner: row.owner };
      }
      return undefined;
    },
    release: async (keys, owner) => {
      for (const key of keys) if (rows.get(key)?.owner === owner) rows.delete(key);
    },
    releaseOwner: async (owner) => {
      let count = 0;
      for (const [key, row] of rows)
        if (row.owner === owner) {
          rows.delete(key);
          count++;
        }
      return count;
    },
    releaseStale: async (before) => {
      let count = 0;
      for (const [key, row] of rows) {
        if (row.at >= before) break;
        rows.delete(key);
        count++;
      }
      return count;
    },
  };
};
