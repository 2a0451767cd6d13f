import { GatewayError, toGatewayError } from "../errors/gateway-error.js";
import type { BackendBatch } from "../ports/text-backend.js";

export type Next =
  | { readonly kind: "batch"; readonly batch: BackendBatch }
  | { readonly kind: "done" }
  | { readonly kind: "failed"; readonly error: GatewayError };

const DONE: Next = { kind: "done" };

/**
 * The turn's idle and request timers, created once per backend attempt and re-armed (Node's
 * `refresh()`, else re-created) per batch: no timer is allocated on the hot path, and with no
 * timeouts configured `next()` is a plain await.
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
  const settled = (r: IteratorResult<BackendBatch>): Next =>
    r.done ? DONE : { kind: "batch", batch: r.value };
  const failed = (e: unknown): Next => ({ kind: "failed", error: toGatewayError(e) });
  return {
    async next(iterator: AsyncIterator<BackendBatch>): Promise<Next> {
      let result: Next;
      if (armed) result = await Promise.race([iterator.next().then(settled, failed), expired]);
      else {
        try {
          result = settled(await iterator.next());
        } catch (e) {
          result = failed(e);
        }
      }
      if (result.kind === "batch") rearm();
      return result;
    },
    dispose(): void {
      clearTimeout(idle);
      clearTimeout(deadline);
    },
  };
};
