import { GatewayError, toGatewayError } from "../errors/gateway-error.js";
import type { BackendEvent } from "../events/backend-event.js";

export type Next =
  | { readonly kind: "event"; readonly event: BackendEvent }
  | { readonly kind: "done" }
  | { readonly kind: "failed"; readonly error: GatewayError };

/**
 * The turn's idle and request timers, created once per backend attempt and re-armed (Node's
 * `refresh()`, else re-created) per event: no timer is allocated on the per-delta hot path, and
 * with no timeouts configured `next()` is a plain await.
 */
export const createWatchdog = (idleMs: number, deadlineAt: number, now: () => number) => {
  let fire: ((next: Next) => void) | undefined;
  const expired = new Promise<Next>((resolve) => {
    fire = resolve;
  });
  const expire = (which: string) => () =>
    fire?.({ kind: "failed", error: new GatewayError("timeout", `The backend hit the ${which}.`) });
  const onIdle = expire("idle timeout");
  let idle = idleMs > 0 ? setTimeout(onIdle, idleMs) : undefined;
  const deadline =
    deadlineAt > 0 ? setTimeout(expire("request timeout"), Math.max(0, deadlineAt - now())) : undefined;
  const armed = idle !== undefined || deadline !== undefined;
  const rearm = () => {
    if (idle === undefined) return;
    const timer = idle as unknown as { refresh?: () => unknown };
    if (typeof timer.refresh === "function") timer.refresh();
    else {
      clearTimeout(idle);
      idle = setTimeout(onIdle, idleMs);
    }
  };
  return {
    async next(iterator: AsyncIterator<BackendEvent>): Promise<Next> {
      const next = iterator.next().then(
        (r): Next => (r.done ? { kind: "done" } : { kind: "event", event: r.value }),
        (e: unknown): Next => ({ kind: "failed", error: toGatewayError(e) }),
      );
      const result = armed ? await Promise.race([next, expired]) : await next;
      if (result.kind === "event") rearm();
      return result;
    },
    dispose(): void {
      clearTimeout(idle);
      clearTimeout(deadline);
    },
  };
};
