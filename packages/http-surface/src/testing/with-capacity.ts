import { type TextBackend, wrapBackend } from "@proxy/core/gateway";

/**
 * At most `slots` turns stream at once; later ones wait for a slot, the way the codex pool's
 * admission does. Lets the contract show that clients holding slots cannot starve the rest.
 */
export const withCapacity = (backend: TextBackend, slots: number): TextBackend => {
  let free = slots;
  const waiting: Array<() => void> = [];
  const acquire = (): Promise<void> => {
    if (free > 0) {
      free--;
      return Promise.resolve();
    }
    return new Promise((resolve) => waiting.push(resolve));
  };
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else free++;
  };
  return wrapBackend(backend, {
    // The event view, one event per batch, so a turn holds its slot while its client is not reading.
    async *stream(request, options) {
      await acquire();
      try {
        for await (const event of backend.stream(request, options)) yield [event];
      } finally {
        release();
      }
    },
  });
};
