import type { Context } from "hono";
import type { RequestLog, RequestRecord } from "./request-log.js";

export interface LiveEventLimits {
  /** Watchers (open `/ui/api/stream` connections) at once; more are refused. */
  readonly maxWatchers: number;
  /** Bytes of events waiting for one watcher; a watcher that lets more pile up is disconnected. */
  readonly maxQueuedBytes: number;
}

export const LIVE_EVENT_LIMITS: LiveEventLimits = { maxWatchers: 16, maxQueuedBytes: 256 * 1024 };

/**
 * The inspector's live events (server-sent), bounded: each watcher's queue by bytes (one that stops
 * reading is disconnected, and its queue freed; a page reconnects and refetches), and watchers by
 * count. An event is one list row, redacted and with every field already cut, so it is small.
 */
export const createLiveEvents = (
  log: RequestLog,
  frame: (record: RequestRecord) => string,
  limits: LiveEventLimits = LIVE_EVENT_LIMITS,
) => {
  const encoder = new TextEncoder();
  const watchers = new Set<ReadableStreamDefaultController<Uint8Array>>();

  const refuse = (c: Context) =>
    c.json(
      {
        error: {
          message: `The inspector already has ${limits.maxWatchers} live watchers (open pages); close one and reload.`,
          code: "too_many_watchers",
        },
      },
      429,
      { "retry-after": "10", "cache-control": "no-store" },
    );

  const stream = (c: Context): Response => {
    if (watchers.size >= limits.maxWatchers) return refuse(c);
    let controller: ReadableStreamDefaultController<Uint8Array> | undefined;
    // node-server's response (its `env`): ending it is quiet, where erroring the stream is logged.
    const outgoing = (c.env as { outgoing?: { destroy(): void } } | undefined)?.outgoing;
    let unsubscribe = () => {};
    let ping: ReturnType<typeof setInterval> | undefined;
    let registered: ReadableStreamDefaultController<Uint8Array> | undefined;
    const stop = () => {
      unsubscribe();
      clearInterval(ping);
      if (registered) watchers.delete(registered);
    };
    const send = (text: string) => {
      if (controller === undefined) return;
      const chunk = encoder.encode(text);
      if (chunk.byteLength > (controller.desiredSize ?? 0)) {
        // Not reading: end its connection, which cancels the stream and frees what waits in it.
        stop();
        if (outgoing) outgoing.destroy();
        else controller.error(new Error("the inspector's watcher stopped reading"));
        controller = undefined;
        return;
      }
      controller.enqueue(chunk);
    };
    const body = new ReadableStream<Uint8Array>(
      {
        start(c0) {
          controller = registered = c0;
          watchers.add(c0);
          send("retry: 2000\n\n");
          unsubscribe = log.subscribe((record, event) => send(`event: ${event}\ndata: ${frame(record)}\n\n`));
          ping = setInterval(() => send(": ping\n\n"), 15_000);
          c.req.raw.signal.addEventListener("abort", stop);
        },
        cancel: stop,
      },
      { highWaterMark: limits.maxQueuedBytes, size: (chunk) => chunk.byteLength },
    );
    return c.body(body, 200, {
      "content-type": "text/event-stream",
      "cache-control": "no-store",
      "x-accel-buffering": "no",
    });
  };

  return {
    stream,
    /** Watchers now, and the bytes waiting for them. */
    stats: () => {
      let queued = 0;
      for (const w of watchers) queued += limits.maxQueuedBytes - (w.desiredSize ?? 0);
      return { watchers: watchers.size, queuedBytes: queued, ...limits };
    },
  };
};
