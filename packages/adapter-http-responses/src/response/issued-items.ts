import type { OutputItem } from "./output-items.js";

/**
 * Output items this app instance issued recently, so `item_reference` inputs can be resolved:
 * the Vercel AI SDK (store defaults to true) sends earlier assistant text and reasoning back as
 * `{type:"item_reference", id}` instead of the item. Bounded by total JSON size; oldest evicted
 * first; per app instance (not shared between processes, not persisted).
 */
export interface IssuedItems {
  remember(items: ReadonlyArray<OutputItem>): void;
  lookup(id: string): OutputItem | undefined;
}

export const DEFAULT_ISSUED_ITEMS_BUDGET = 4 * 1024 * 1024;

export const createIssuedItems = (budgetChars = DEFAULT_ISSUED_ITEMS_BUDGET): IssuedItems => {
  const items = new Map<string, { item: OutputItem; size: number }>();
  let total = 0;
  return {
    remember(batch) {
      for (const item of batch) {
        const size = JSON.stringify(item).length;
        if (size > budgetChars) continue;
        const previous = items.get(item.id);
        if (previous !== undefined) {
          items.delete(item.id);
          total -= previous.size;
        }
        items.set(item.id, { item, size });
        total += size;
      }
      for (const [id, entry] of items) {
        if (total <= budgetChars) break;
        items.delete(id);
        total -= entry.size;
      }
    },
    lookup: (id) => items.get(id)?.item,
  };
};
