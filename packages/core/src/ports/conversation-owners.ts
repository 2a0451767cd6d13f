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
  /** `owner` now holds the conversation `key` (a newer record of the same key replaces it). */
  record(key: string, owner: string, now: number): Promise<void>;
  /**
   * The owned key of `keys` that comes last in the list (callers list a conversation's prefixes
   * oldest first, so that is the longest conversation someone holds), or undefined.
   */
  lookup(keys: ReadonlyArray<string>): Promise<ConversationOwner | undefined>;
  /** `owner` let `key` go; a newer owner's record of the same key is kept. */
  release(key: string, owner: string): Promise<void>;
  /** Every record of `owner` (a replica that starts or stops holds nothing); how many went. */
  releaseOwner(owner: string): Promise<number>;
}

/** The table in memory: replicas of one process (tests), or a gateway without a shared store. */
export const createMemoryConversationOwners = (): ConversationOwners => {
  const rows = new Map<string, string>();
  return {
    record: async (key, owner) => {
      rows.set(key, owner);
    },
    lookup: async (keys) => {
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i] as string;
        const owner = rows.get(key);
        if (owner !== undefined) return { key, owner };
      }
      return undefined;
    },
    release: async (key, owner) => {
      if (rows.get(key) === owner) rows.delete(key);
    },
    releaseOwner: async (owner) => {
      let count = 0;
      for (const [key, held] of rows)
        if (held === owner) {
          rows.delete(key);
          count++;
        }
      return count;
    },
  };
};
