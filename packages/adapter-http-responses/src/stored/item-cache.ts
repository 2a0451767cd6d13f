import type { ResponseStore, StoredItem } from "@proxy/core/gateway";

/** Budget (JSON characters) of recently stored items kept in memory per app instance. */
export const DEFAULT_ITEM_CACHE_CHARS = 4 * 1024 * 1024;

/**
 * A read-through cache in front of the store for `item_reference` lookups (the AI SDK refers back
 * to the previous step's items on every step). Keys carry the owner, so one key's cached items are
 * never another's; bounded by total JSON size, least recently used evicted first.
 */
export const createItemCache = (store: ResponseStore, budgetChars = DEFAULT_ITEM_CACHE_CHARS) => {
  const entries = new Map<string, { readonly body: unknown; readonly size: number }>();
  let total = 0;
  const keyOf = (owner: string, id: string) => `${owner}\u0000${id}`;
  const put = (key: string, body: unknown) => {
    const size = JSON.stringify(body).length;
    if (size > budgetChars) return;
    const previous = entries.get(key);
    if (previous !== undefined) {
      entries.delete(key);
      total -= previous.size;
    }
    entries.set(key, { body, size });
    total += size;
    for (const [oldest, entry] of entries) {
      if (total <= budgetChars) break;
      entries.delete(oldest);
      total -= entry.size;
    }
  };
  return {
    /** Items just stored (a finished turn's input and output). */
    remember(owner: string, items: ReadonlyArray<StoredItem>): void {
      for (const item of items) put(keyOf(owner, item.id), item.body);
    },
    async lookup(owner: string, id: string): Promise<unknown> {
      const key = keyOf(owner, id);
      const hit = entries.get(key);
      if (hit !== undefined) {
        entries.delete(key);
        entries.set(key, hit);
        return hit.body;
      }
      const body = await store.getItem(owner, id);
      if (body !== undefined) put(key, body);
      return body;
    },
  };
};

export type ItemCache = ReturnType<typeof createItemCache>;
