import {
  type BackendBatch,
  type BackendRequest,
  backendBatches,
  batchedEvents,
  GatewayError,
  type TextBackend,
} from "@proxy/core";

interface Waiter {
  readonly grant: () => void;
}

/**
 * A route's own concurrency limit in front of its backend: at most `maxInFlight` turns run, at
 * most `maxQueue` wait (FIFO), beyond that the request is refused as `overloaded` naming the route.
 * A slot passes straight from a finishing turn to the next waiter.
 */
export const withRouteAdmission = (
  inner: TextBackend,
  options: { readonly route: string; readonly maxInFlight: number; readonly maxQueue: number },
): TextBackend => {
  let running = 0;
  const waiting: Waiter[] = [];

  const release = () => {
    const next = waiting.shift();
    if (next) next.grant();
    else running--;
  };

  const acquire = (signal: AbortSignal): Promise<void> => {
    if (signal.aborted) return Promise.reject(cancelled());
    if (running < options.maxInFlight) {
      running++;
      return Promise.resolve();
    }
    if (waiting.length >= options.maxQueue)
      return Promise.reject(
        new GatewayError("overloaded", `route '${options.route}' is at capacity; retry shortly`, {
          retryAfterSeconds: 1,
        }),
      );
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        grant: () => {
          signal.removeEventListener("abort", onAbort);
          resolve();
        },
      };
      function onAbort() {
        const i = waiting.indexOf(waiter);
        if (i !== -1) waiting.splice(i, 1);
        reject(cancelled());
      }
      signal.addEventListener("abort", onAbort, { once: true });
      waiting.push(waiter);
    });
  };

  async function* admitted(request: BackendRequest, signal: AbortSignal): AsyncGenerator<BackendBatch> {
    await acquire(signal);
    try {
      yield* backendBatches(inner, request, { signal });
    } finally {
      release();
    }
  }

  return {
    specificationVersion: "v1",
    name: inner.name,
    get capabilities() {
      return inner.capabilities;
    },
    stream: (request, { signal }) => batchedEvents(() => admitted(request, signal)),
    listModels: () => inner.listModels(),
    readiness() {
      const r = inner.readiness();
      return {
        ...r,
        ready: r.ready && running < options.maxInFlight,
        inFlight: running,
        queued: waiting.length,
        capacity: options.maxInFlight,
      };
    },
  };
};

const cancelled = () => new GatewayError("cancelled", "request cancelled while queued");
