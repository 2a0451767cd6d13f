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
  /** The item pushed last, if the consumer has not taken it yet (a producer may still add to it). */
  last(): T | undefined;
  /** Removes every waiting item (the consumer will not want them). */
  clear(): void;
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
    last: () => items[items.length - 1],
    clear() {
      items.length = 0;
    },
    shift: () => items.shift(),
    async next() {
      while (items.length === 0 && !ended) await new Promise<void>((resolve) => (wake = resolve));
      return items.shift();
    },
  };
};
