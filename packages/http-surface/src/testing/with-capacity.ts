import type { TextBackend } from "@proxy/core";

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
  return {
    ...backend,
    async *stream(request, options) {
      await acquire();
      try {
        yield* backend.stream(request, options);
      } finally {
        release();
      }
    },
  };
};
