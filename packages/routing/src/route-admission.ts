import { type BackendMiddleware, createAdmissionGate, onBatchesEnd } from "@proxy/core/gateway";

/**
 * A route's own concurrency limit in front of its backend: at most `maxInFlight` turns run, at
 * most `maxQueue` wait (FIFO), beyond that the request is refused as `overloaded` naming the route.
 */
export const routeAdmission = (options: {
  readonly route: string;
  readonly maxInFlight: number;
  readonly maxQueue: number;
}): BackendMiddleware => {
  const gate = createAdmissionGate({
    maxInFlight: options.maxInFlight,
    maxQueue: options.maxQueue,
    overloadedMessage: `route '${options.route}' is at capacity; retry shortly`,
  });

  return {
    async stream(request, options, next) {
      const release = await gate.acquire(options.signal);
      try {
        return onBatchesEnd(next(request, options), release);
      } catch (error) {
        release();
        throw error;
      }
    },
    readiness(next) {
      const r = next();
      const inFlight = gate.inFlight();
      return {
        ...r,
        ready: r.ready && inFlight < gate.capacity,
        inFlight,
        queued: gate.queued(),
        capacity: gate.capacity,
      };
    },
  };
};
