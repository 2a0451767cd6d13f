import type { Dispatcher } from "undici";

/** Body bytes held for a reader that has not come back yet before the upstream socket is paused. */
const HIGH_WATER_BYTES = 64 * 1024;

/** The upstream's answer: status and headers, then its body pulled as it arrives. */
export interface UpstreamExchange {
  readonly statusCode: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /**
   * The body chunks that arrived since the last read (at least one; several when the reader was
   * busy), or undefined once the body ended. Rejects with the transport's error.
   */
  read(): Promise<ReadonlyArray<Buffer> | undefined>;
  /** Done with the body: an unfinished exchange is aborted (its connection is not reused). */
  close(): void;
}

type Settle<T> = { resolve(value: T): void; reject(error: unknown): void };

/**
 * One request through undici's dispatcher with a handler, not `request()`'s Readable body: the
 * chunks of a network read are handed over as they are, one promise per read rather than the
 * stream machinery per chunk, and the socket is paused while a slow reader has 64 KiB waiting.
 */
class Exchange implements Dispatcher.DispatchHandler, UpstreamExchange {
  statusCode = 0;
  headers: Record<string, string | string[] | undefined> = {};
  private controller: Dispatcher.DispatchController | undefined;
  private chunks: Buffer[] = [];
  private bytes = 0;
  private ended = false;
  private failure: unknown;
  private opening: Settle<UpstreamExchange> | undefined;
  private reading: Settle<ReadonlyArray<Buffer> | undefined> | undefined;
  private readonly onAbort = () => this.controller?.abort(this.signal.reason);

  constructor(
    private readonly signal: AbortSignal,
    opening: Settle<UpstreamExchange>,
  ) {
    this.opening = opening;
    signal.addEventListener("abort", this.onAbort, { once: true });
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.signal.aborted) controller.abort(this.signal.reason);
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    if (statusCode < 200) return;
    this.statusCode = statusCode;
    this.headers = headers;
    const opening = this.opening;
    this.opening = undefined;
    opening?.resolve(this);
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.chunks.push(chunk);
    this.bytes += chunk.length;
    if (this.reading !== undefined) this.wake();
    else if (this.bytes >= HIGH_WATER_BYTES) controller.pause();
  }

  onResponseEnd(): void {
    this.ended = true;
    this.signal.removeEventListener("abort", this.onAbort);
    if (this.reading !== undefined) this.wake();
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.failure = error;
    this.signal.removeEventListener("abort", this.onAbort);
    if (this.opening !== undefined) {
      this.opening.reject(error);
      this.opening = undefined;
    } else if (this.reading !== undefined) this.wake();
  }

  read(): Promise<ReadonlyArray<Buffer> | undefined> {
    if (this.chunks.length > 0) return Promise.resolve(this.take());
    if (this.failure !== undefined) return Promise.reject(this.failure);
    if (this.ended) return Promise.resolve(undefined);
    return new Promise((resolve, reject) => {
      this.reading = { resolve, reject };
    });
  }

  close(): void {
    this.signal.removeEventListener("abort", this.onAbort);
    if (!this.ended && this.failure === undefined)
      this.controller?.abort(new Error("upstream body not read"));
  }

  private take(): Buffer[] {
    const chunks = this.chunks;
    this.chunks = [];
    this.bytes = 0;
    // Resuming may hand over what the socket already holds at once: it starts a new batch.
    if (this.controller?.paused === true) this.controller.resume();
    return chunks;
  }

  private wake(): void {
    const reading = this.reading as Settle<ReadonlyArray<Buffer> | undefined>;
    this.reading = undefined;
    if (this.chunks.length > 0) reading.resolve(this.take());
    else if (this.failure !== undefined) reading.reject(this.failure);
    else reading.resolve(undefined);
  }
}

/** Sends the request; resolves once the upstream answered with a final status (rejects if it could not). */
export const openExchange = (
  dispatcher: Dispatcher,
  options: Dispatcher.DispatchOptions,
  signal: AbortSignal,
): Promise<UpstreamExchange> =>
  new Promise((resolve, reject) => {
    const exchange = new Exchange(signal, { resolve, reject });
    try {
      dispatcher.dispatch(options, exchange);
    } catch (error) {
      exchange.close();
      reject(error);
    }
  });
