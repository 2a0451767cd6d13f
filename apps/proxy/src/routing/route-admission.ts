import { type BackendEvent, type BackendRequest, createAdmissionGate, type TextBackend } from "@proxy/core";

/**
 * A route's own concurrency limit in front of its backend: at most `maxInFlight` turns run, at
 * most `maxQueue` wait (FIFO), beyond that the request is refused as `overloaded` naming the route.
 */
export const withRouteAdmission = (
  inner: TextBackend,
  options: { readonly route: string; readonly maxInFlight: number; readonly maxQueue: number },
): TextBackend => {
  const gate = createAdmissionGate({
    maxInFlight: options.maxInFlight,
    maxQueue: options.maxQueue,
    overloadedMessage: `route '${options.route}' is at capacity; retry shortly`,
  });

  async function* admitted(request: BackendRequest, signal: AbortSignal): AsyncGenerator<BackendEvent> {
    const release = await gate.acquire(signal);
    try {
      yield* inner.stream(request, { signal });
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
    stream: (request, { signal }) => admitted(request, signal),
    listModels: () => inner.listModels(),
    readiness() {
      const r = inner.readiness();
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
