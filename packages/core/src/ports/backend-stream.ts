import type { BackendBatch, BackendStream } from "./text-backend.js";

/** The event view of batches, one by one. */
export async function* flattenBatches<T>(batches: AsyncIterable<ReadonlyArray<T>>): AsyncGenerator<T> {
  for await (const batch of batches) for (const item of batch) yield item;
}

type Opened = AsyncIterable<BackendBatch> | PromiseLike<AsyncIterable<BackendBatch>>;

const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });

/**
 * Batches whose source is opened at the first `next()` (a refusal thrown while opening is that
 * call's rejection, as a generator's would be), then read straight from the source: no generator
 * frame and no promise of its own per batch.
 */
class OpenedOnFirstRead implements AsyncIterableIterator<BackendBatch> {
  private source: AsyncIterator<BackendBatch> | undefined;
  private closed = false;
  constructor(private readonly open: () => Opened) {}

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<BackendBatch>> {
    return this.source !== undefined ? this.source.next() : this.start();
  }

  private async start(): Promise<IteratorResult<BackendBatch>> {
    if (this.closed) return DONE;
    this.source = (await this.open())[Symbol.asyncIterator]();
    return this.source.next();
  }

  async return(): Promise<IteratorResult<BackendBatch>> {
    this.closed = true;
    await this.source?.return?.();
    return DONE;
  }
}

/**
 * What every backend's `stream` returns: the turn's batches, opened lazily by `open` (which may be
 * async, to admit or refuse the turn first), and readable one event at a time too.
 */
export const backendStream = (open: () => Opened): BackendStream => {
  const batches = (): AsyncIterableIterator<BackendBatch> => new OpenedOnFirstRead(open);
  return { batches, [Symbol.asyncIterator]: () => flattenBatches(batches())[Symbol.asyncIterator]() };
};

/**
 * Calls `done` once when the batches end: read to the end, failed, or returned early (a consumer
 * that stops). One `then` per batch; for a layer that holds something for the turn's duration.
 */
export const onBatchesEnd = (
  batches: AsyncIterable<BackendBatch>,
  done: () => void,
): AsyncIterable<BackendBatch> => ({
  [Symbol.asyncIterator]: () => {
    const source = batches[Symbol.asyncIterator]();
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      done();
    };
    const settle = (result: IteratorResult<BackendBatch>) => {
      if (result.done === true) end();
      return result;
    };
    const fail = (error: unknown): never => {
      end();
      throw error;
    };
    return {
      next: () => source.next().then(settle, fail),
      async return(): Promise<IteratorResult<BackendBatch>> {
        try {
          await source.return?.();
        } finally {
          end();
        }
        return DONE;
      },
    };
  },
});
