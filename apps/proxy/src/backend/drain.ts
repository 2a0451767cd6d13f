import { GatewayError } from "@proxy/core";
import type { BackendBatch, BackendMiddleware } from "@proxy/core/gateway";

/** The drain's side of the control plane: what shutdown and the status pages ask of it. */
export interface Drain {
  /** Refuse new turns, wait up to `graceMs` for running ones, then end the rest cleanly. */
  drain(graceMs: number): Promise<void>;
  activeTurns(): number;
}

/** A controller of the layer's own that follows `signal`, for a caller that gives no `abort`. */
const ownAbort = (signal: AbortSignal) => {
  const controller = new AbortController();
  const abort = () => controller.abort();
  signal.addEventListener("abort", abort, { once: true });
  return {
    options: { signal: controller.signal, abort },
    release: () => signal.removeEventListener("abort", abort),
  };
};

/**
 * Graceful shutdown as a layer: once draining, new turns are refused (`backend_unavailable`,
 * retry in 5 s); turns still running at the deadline end with a proper error event, which the
 * surfaces turn into a terminal SSE event. `onDrain` is told once draining starts (the codex pool
 * then stops restarting its processes).
 */
export const createDrain = (onDrain?: () => void): Drain & { readonly middleware: BackendMiddleware } => {
  const active = new Set<(error: GatewayError) => void>();
  let draining = false;
  const idle: Array<() => void> = [];
  const settle = () => {
    if (active.size === 0) for (const resolve of idle.splice(0)) resolve();
  };

  const middleware: BackendMiddleware = {
    async *stream(request, options, next): AsyncGenerator<BackendBatch> {
      if (draining)
        throw new GatewayError("backend_unavailable", "The gateway is shutting down.", {
          retryAfterSeconds: 5,
        });
      // The caller's own abort when it gives one (core's attempt does): no second controller chained
      // in front of its signal. A caller that gives none gets one here.
      const own = options.abort === undefined ? ownAbort(options.signal) : undefined;
      const inner = own?.options ?? options;
      const abort = inner.abort as () => void;
      let stopWith: GatewayError | undefined;
      let ended = false;
      // Stopping aborts the inner turn; backends must then end promptly (the TextBackend contract),
      // so the hot path needs no per-event race.
      const stop = (error: GatewayError) => {
        stopWith = error;
        abort();
      };
      active.add(stop);
      try {
        for await (const batch of next(request, inner)) {
          if (stopWith) break;
          yield batch;
        }
        ended = stopWith === undefined;
        if (stopWith) yield [{ type: "error", error: stopWith }];
      } finally {
        own?.release();
        active.delete(stop);
        // An inner turn that ended by itself needs no stop (an abort allocates a DOMException).
        if (!ended) abort();
        settle();
      }
    },
    readiness(next) {
      const r = next();
      return draining ? { ...r, ready: false, detail: "draining" } : r;
    },
  };

  return {
    middleware,
    activeTurns: () => active.size,
    async drain(graceMs: number) {
      if (!draining) onDrain?.();
      draining = true;
      if (active.size > 0) {
        const timer = new Promise<void>((resolve) => setTimeout(resolve, graceMs).unref?.());
        await Promise.race([new Promise<void>((resolve) => idle.push(resolve)), timer]);
      }
      for (const stop of [...active])
        stop(new GatewayError("backend_unavailable", "The gateway shut down before the turn finished."));
    },
  };
};
