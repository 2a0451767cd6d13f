import {
  type BackendRequest,
  GatewayError,
  type GatewayErrorKind,
  isGatewayError,
  toGatewayError,
} from "@proxy/core";
import type { BackendBatch, BackendCapabilities, BackendMiddleware } from "@proxy/core/gateway";
import type { Route } from "./route.js";
import { logText, type RouteLog } from "./route-log.js";

/** Failures after which the next route may take the request, if nothing was sent to the client yet. */
const FALLBACK_KINDS: ReadonlySet<GatewayErrorKind> = new Set([
  "rate_limited",
  "overloaded",
  "backend_unavailable",
  "backend_auth",
  "timeout",
]);

/** One route to try, and how to start its turn. */
interface Attempt {
  readonly route: Route;
  open(signal: AbortSignal): AsyncIterable<BackendBatch>;
}

const hasImages = (request: BackendRequest): boolean =>
  request.input.some((p) => p.type === "image") ||
  request.history.some((m) => "content" in m && m.content.some((p) => p.type === "image"));

/**
 * Why a fallback route cannot take a request the primary's backend was rendered for, or undefined.
 * A native turn (tools passed as tools) needs native tools; a prompt turn is text any route reads.
 */
export const unfitReason = (
  request: BackendRequest,
  route: Route,
  nativeTools: boolean,
): string | undefined => {
  if (request.tools !== undefined && !nativeTools)
    return "the request uses native tools, which this route does not take";
  if (route.config.images === false && hasImages(request))
    return "the request carries images, which this route does not take";
  return undefined;
};

/** The first output a client would see: anything but `stream-start` and `usage`. */
const firstOutput = (batch: BackendBatch): BackendBatch[number] | undefined =>
  batch.find((e) => e.type !== "stream-start" && e.type !== "usage");

type Outcome =
  | { readonly kind: "answered"; readonly held: BackendBatch[] }
  | { readonly kind: "failed"; readonly error: GatewayError }
  | { readonly kind: "ended"; readonly held: BackendBatch[] };

const TIMED_OUT = Symbol("timed out");

/**
 * Runs the request on the first attempt that answers. A route that is not the last is read until
 * its first output, holding everything before it (its `stream-start` too, so the client's status
 * line waits): a failure of a fallback kind there, thrown or as the first event, or no output
 * within the route's `firstByteTimeoutMs`, moves the request to the next route. Once output came,
 * the route's stream passes through as it is: after the first byte, no retry. The last attempt
 * passes through from the start.
 */
async function* withFallbacks(
  attempts: ReadonlyArray<Attempt>,
  signal: AbortSignal,
  logger: RouteLog,
): AsyncGenerator<BackendBatch> {
  for (const [i, attempt] of attempts.entries()) {
    const { route } = attempt;
    const id = route.config.id;
    const next = attempts[i + 1];
    if (next === undefined) {
      yield* attempt.open(signal);
      return;
    }
    const controller = new AbortController();
    const forward = () => controller.abort();
    signal.addEventListener("abort", forward, { once: true });
    const iterator = attempt.open(controller.signal)[Symbol.asyncIterator]();
    let finished = false;
    try {
      const outcome = await untilFirstOutput(iterator, route.config.firstByteTimeoutMs);
      if (signal.aborted) return;
      if (outcome.kind === "failed") {
        logger.warn(
          {
            route: id,
            fallback: next.route.config.id,
            reason: outcome.error.kind,
            detail: logText(outcome.error.message),
          },
          "model route: falling back before the first byte",
        );
        continue;
      }
      for (const batch of outcome.held) yield batch;
      if (outcome.kind !== "ended")
        for (let r = await iterator.next(); r.done !== true; r = await iterator.next()) yield r.value;
      finished = true;
      return;
    } finally {
      signal.removeEventListener("abort", forward);
      // Stops a route left behind (failed, too slow) or one whose consumer stopped reading.
      if (!finished) {
        controller.abort();
        void iterator.return?.()?.catch(() => {});
      }
    }
  }
}

/** Pulls batches until the first output, a failure, the end, or the first-byte deadline. */
const untilFirstOutput = async (
  iterator: AsyncIterator<BackendBatch>,
  timeoutMs: number | undefined,
): Promise<Outcome> => {
  const held: BackendBatch[] = [];
  let timer: NodeJS.Timeout | undefined;
  const deadline =
    timeoutMs === undefined
      ? undefined
      : new Promise<typeof TIMED_OUT>((resolve) => {
          timer = setTimeout(() => resolve(TIMED_OUT), timeoutMs);
        });
  try {
    for (;;) {
      let r: IteratorResult<BackendBatch> | typeof TIMED_OUT;
      try {
        const pull = iterator.next();
        r = deadline === undefined ? await pull : await Promise.race([pull, deadline]);
      } catch (e) {
        const error = toGatewayError(e);
        if (FALLBACK_KINDS.has(error.kind)) return { kind: "failed", error };
        throw e;
      }
      if (r === TIMED_OUT)
        return {
          kind: "failed",
          error: new GatewayError("timeout", `no answer within ${timeoutMs} ms (firstByteTimeoutMs)`),
        };
      if (r.done === true) return { kind: "ended", held };
      const first = firstOutput(r.value);
      if (first?.type === "error" && isGatewayError(first.error) && FALLBACK_KINDS.has(first.error.kind))
        return { kind: "failed", error: first.error };
      held.push(r.value);
      if (first !== undefined) return { kind: "answered", held };
    }
  } finally {
    clearTimeout(timer);
  }
};

/** What a route can do as the route table sees it (its `toolMode`, else its backend's). */
export const capabilitiesOf = (route: Route): BackendCapabilities | undefined =>
  route.backend.capabilitiesFor?.(route.config.id) ?? route.backend.capabilities;

/**
 * A route's fallbacks as a layer around its own stack: the request runs on the route (`next`), and
 * on each of `targets` (the other routes' stacks, without their own fallbacks) that can serve it,
 * in order, while the one before fails of a fallback kind before its first output.
 */
export const routeFallbacks = (
  primary: Route,
  targets: ReadonlyArray<Route>,
  logger: RouteLog,
): BackendMiddleware => ({
  stream(request, options, next) {
    const attempts: Attempt[] = [{ route: primary, open: (signal) => next(request, { signal }) }];
    for (const route of targets) {
      const why = unfitReason(request, route, capabilitiesOf(route)?.nativeTools === true);
      if (why !== undefined)
        logger.info(
          { route: primary.config.id, fallback: route.config.id, reason: why },
          "model route: fallback skipped",
        );
      else attempts.push({ route, open: (signal) => route.backend.stream(request, { signal }).batches() });
    }
    return attempts.length === 1 ? next(request, options) : withFallbacks(attempts, options.signal, logger);
  },
});
