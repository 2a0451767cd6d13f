import { GatewayError } from "../errors/gateway-error.js";

/** Bounded admission in front of a backend: how many turns run and how many wait for a slot. */
export interface AdmissionGate {
  /**
   * Resolves with this turn's release function once a slot is free (calling it again is a no-op);
   * rejects as `overloaded` when the queue is full, as `cancelled` when `signal` aborts first.
   */
  acquire(signal: AbortSignal): Promise<() => void>;
  inFlight(): number;
  queued(): number;
  readonly capacity: number;
}

export interface AdmissionGateOptions {
  readonly maxInFlight: number;
  readonly maxQueue: number;
  /** The `overloaded` error's message, naming what is at capacity. */
  readonly overloadedMessage: string;
  readonly retryAfterSeconds?: number | undefined;
}

interface Waiter {
  readonly grant: () => void;
}

/**
 * At most `maxInFlight` turns run and at most `maxQueue` wait (FIFO); beyond that a request is
 * refused as `overloaded` so the client backs off instead of piling up. A slot passes straight
 * from a finishing turn to the next waiter, so `inFlight` never dips between them.
 */
export const createAdmissionGate = (options: AdmissionGateOptions): AdmissionGate => {
  let running = 0;
  const waiting: Waiter[] = [];

  const release = () => {
    const next = waiting.shift();
    if (next) next.grant();
    else running--;
  };
  const releaseOnce = () => {
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
      if (signal.aborted) return Promise.reject(cancelledWhileQueued());
      if (running < options.maxInFlight) {
        running++;
        return Promise.resolve(releaseOnce());
      }
      if (waiting.length >= options.maxQueue)
        return Promise.reject(
          new GatewayError("overloaded", options.overloadedMessage, {
            retryAfterSeconds: options.retryAfterSeconds ?? 1,
          }),
        );
      return new Promise((resolve, reject) => {
        const waiter: Waiter = {
          // The releasing turn's slot becomes this one's: `running` is unchanged.
          grant: () => {
            signal.removeEventListener("abort", onAbort);
            resolve(releaseOnce());
          },
        };
        function onAbort() {
          const i = waiting.indexOf(waiter);
          if (i !== -1) waiting.splice(i, 1);
          reject(cancelledWhileQueued());
        }
        signal.addEventListener("abort", onAbort, { once: true });
        waiting.push(waiter);
      });
    },
  };
};

const cancelledWhileQueued = () => new GatewayError("cancelled", "request cancelled while queued");
