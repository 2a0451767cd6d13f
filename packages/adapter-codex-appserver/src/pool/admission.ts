import { GatewayError } from "@proxy/core";

export interface Admission {
  /** Resolves with a release function once a slot is free; rejects when the queue is full or `signal` aborts. */
  acquire(signal: AbortSignal): Promise<() => void>;
  inFlight(): number;
  queued(): number;
  readonly capacity: number;
}

/**
 * Bounded concurrency: at most `maxInFlight` turns run, at most `maxQueue` wait (FIFO); beyond
 * that the request is refused as `overloaded` so the client backs off instead of piling up.
 */
export const createAdmission = (options: {
  readonly maxInFlight: number;
  readonly maxQueue: number;
  readonly retryAfterSeconds?: number;
}): Admission => {
  let running = 0;
  const waiting: Array<{ grant: () => void }> = [];

  const release = () => {
    const next = waiting.shift();
    if (next) next.grant();
    else running--;
  };
  const once = () => {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      release();
    };
  };

  return {
    capacity: options.maxInFlight,
    inFlight: () => running,
    queued: () => waiting.length,
    acquire(signal) {
      if (signal.aborted) return Promise.reject(abortError());
      if (running < options.maxInFlight) {
        running++;
        return Promise.resolve(once());
      }
      if (waiting.length >= options.maxQueue) {
        return Promise.reject(
          new GatewayError("overloaded", "the codex backend is at capacity; retry shortly", {
            retryAfterSeconds: options.retryAfterSeconds ?? 1,
          }),
        );
      }
      return new Promise((resolve, reject) => {
        const entry = {
          // The slot passes straight from the releasing turn to this one: `running` is unchanged.
          grant: () => {
            signal.removeEventListener("abort", onAbort);
            resolve(once());
          },
        };
        function onAbort() {
          const i = waiting.indexOf(entry);
          if (i !== -1) waiting.splice(i, 1);
          reject(abortError());
        }
        signal.addEventListener("abort", onAbort, { once: true });
        waiting.push(entry);
      });
    },
  };
};

const abortError = () => new GatewayError("cancelled", "request cancelled while queued");
