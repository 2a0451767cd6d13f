import { GatewayError, toGatewayError } from "../errors/gateway-error.js";
import type { BackendEvent } from "../events/backend-event.js";

export type Next =
  | { readonly kind: "event"; readonly event: BackendEvent }
  | { readonly kind: "done" }
  | { readonly kind: "failed"; readonly error: GatewayError };

/**
 * The backend's next event, or a timeout once `idleMs` of silence or the turn's deadline passes.
 * Thrown backend errors become values so the caller has one place to decide what they mean.
 */
export const nextEvent = async (
  iterator: AsyncIterator<BackendEvent>,
  idleMs: number,
  deadlineAt: number,
  now: () => number,
): Promise<Next> => {
  const untilDeadline = deadlineAt > 0 ? deadlineAt - now() : Number.POSITIVE_INFINITY;
  const wait = Math.min(idleMs > 0 ? idleMs : Number.POSITIVE_INFINITY, untilDeadline);
  const next = iterator.next().then(
    (r): Next => (r.done ? { kind: "done" } : { kind: "event", event: r.value }),
    (e: unknown): Next => ({ kind: "failed", error: toGatewayError(e) }),
  );
  if (wait === Number.POSITIVE_INFINITY) return next;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<Next>((resolve) => {
    const which = wait === untilDeadline ? "request timeout" : "idle timeout";
    timer = setTimeout(
      () => resolve({ kind: "failed", error: new GatewayError("timeout", `The backend hit the ${which}.`) }),
      Math.max(0, wait),
    );
  });
  try {
    return await Promise.race([next, timeout]);
  } finally {
    clearTimeout(timer);
  }
};

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
