import type { BackendEvent } from "../events/backend-event.js";
import type { BackendBatch, BackendRequest, BatchedEvents, TextBackend } from "./text-backend.js";

/** The event view of batches, one by one. */
export async function* flattenBatches<T>(batches: AsyncIterable<ReadonlyArray<T>>): AsyncGenerator<T> {
  for await (const batch of batches) for (const item of batch) yield item;
}

/** What a batching backend's `stream` returns: its batches, iterable one event at a time too. */
export const batchedEvents = (batches: () => AsyncIterable<BackendBatch>): BatchedEvents => ({
  batches,
  [Symbol.asyncIterator]: () => flattenBatches(batches())[Symbol.asyncIterator](),
});

const isBatched = (events: AsyncIterable<BackendEvent>): events is BatchedEvents =>
  typeof (events as Partial<BatchedEvents>).batches === "function";

async function* oneByOne(events: AsyncIterable<BackendEvent>): AsyncGenerator<BackendBatch> {
  for await (const event of events) yield [event];
}

/** The one way to read a turn from a backend (or a wrapper): batches if it has them, else one event each. */
export const backendBatches = (
  backend: Pick<TextBackend, "stream">,
  request: BackendRequest,
  options: { readonly signal: AbortSignal },
): AsyncIterable<BackendBatch> => {
  const events = backend.stream(request, options);
  return isBatched(events) ? events.batches() : oneByOne(events);
};
