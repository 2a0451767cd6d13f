import { toGatewayError } from "@proxy/core";
import type { BackendBatch, BackendMiddleware } from "@proxy/core/gateway";

/** The route id of the codex backend the gateway serves from when no `models` are configured. */
export const DEFAULT_CODEX_ROUTE = "codex";

const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });

/**
 * Names `route` on the turn itself: on its `stream-start`, or on the refusal that ends it before
 * one (a thrown refusal becomes that `error` event, as the backend port allows). Only batches up
 * to the first of them are looked at; the rest are read straight from the source.
 */
class StampedBatches implements AsyncIterator<BackendBatch> {
  private stamped = false;
  private ended = false;
  constructor(
    private readonly source: AsyncIterator<BackendBatch>,
    private readonly route: string,
  ) {}

  next(): Promise<IteratorResult<BackendBatch>> {
    if (this.ended) return Promise.resolve(DONE);
    if (this.stamped) return this.source.next();
    return this.source.next().then(this.stamp, this.refused);
  }

  private readonly stamp = (result: IteratorResult<BackendBatch>): IteratorResult<BackendBatch> => {
    if (result.done === true) return result;
    const batch = result.value;
    const at = batch.findIndex((e) => e.type === "stream-start" || e.type === "error");
    const event = batch[at];
    if (event === undefined) return result;
    this.stamped = true;
    const named = { ...event, route: this.route };
    return { done: false, value: batch.map((e, i) => (i === at ? named : e)) };
  };

  /** A refusal thrown before the turn started: the same refusal, as an event naming the route. */
  private readonly refused = (error: unknown): IteratorResult<BackendBatch> => {
    this.ended = true;
    return { done: false, value: [{ type: "error", error: toGatewayError(error), route: this.route }] };
  };

  async return(): Promise<IteratorResult<BackendBatch>> {
    this.ended = true;
    await this.source.return?.();
    return DONE;
  }
}

/** A backend serving as one route: every turn it takes, or refuses, names `id` in its stream. */
export const answeringRoute = (id: string): BackendMiddleware => ({
  stream: (request, options, next) => ({
    [Symbol.asyncIterator]: () => new StampedBatches(next(request, options)[Symbol.asyncIterator](), id),
  }),
});
