/** A single-consumer queue bridging push-style callbacks (notifications) to `await next()`. */
export interface AsyncQueue<T> {
  push(item: T): void;
  /** Resolves with the next item, or `undefined` once ended and drained. */
  next(): Promise<T | undefined>;
  /** The next item if one is waiting (the consumer takes everything buffered in one pass). */
  shift(): T | undefined;
  end(): void;
  /** Items waiting for the consumer. */
  size(): number;
}

export const createAsyncQueue = <T>(): AsyncQueue<T> => {
  const items: T[] = [];
  let ended = false;
  let wake: (() => void) | undefined;
  const notify = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  return {
    push(item) {
      if (ended) return;
      items.push(item);
      notify();
    },
    end() {
      ended = true;
      notify();
    },
    size: () => items.length,
    shift: () => items.shift(),
    async next() {
      while (items.length === 0 && !ended) await new Promise<void>((resolve) => (wake = resolve));
      return items.shift();
    },
  };
};
