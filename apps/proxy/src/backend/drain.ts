import { GatewayError } from "@proxy/core";
import type { BackendBatch, BackendMiddleware } from "@proxy/core/gateway";

/** The drain's side of the control plane: what shutdown and the status pages ask of it. */
export interface Drain {
  /** Refuse new turns, wait up to `graceMs` for running ones, then end the rest cleanly. */
  drain(graceMs: number): Promise<void>;
  activeTurns(): number;
}

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
    async *stream(request, { signal }, next): AsyncGenerator<BackendBatch> {
      if (draining)
        throw new GatewayError("backend_unavailable", "The gateway is shutting down.", {
          retryAfterSeconds: 5,
        });
      const controller = new AbortController();
      const forward = () => controller.abort();
      signal.addEventListener("abort", forward, { once: true });
      let stopWith: GatewayError | undefined;
      let ended = false;
      // Stopping aborts the inner turn; backends must then end promptly (the TextBackend contract),
      // so the hot path needs no per-event race.
      const stop = (error: GatewayError) => {
        stopWith = error;
        controller.abort();
      };
      active.add(stop);
      try {
        for await (const batch of next(request, { signal: controller.signal })) {
          if (stopWith) break;
          yield batch;
        }
        ended = stopWith === undefined;
        if (stopWith) yield [{ type: "error", error: stopWith }];
      } finally {
        signal.removeEventListener("abort", forward);
        active.delete(stop);
        // An inner turn that ended by itself needs no stop (an abort allocates a DOMException).
        if (!ended) controller.abort();
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
