import { AsyncLocalStorage } from "node:async_hooks";
import { randomUUID } from "node:crypto";
import type { TurnObserver, TurnSummary } from "@proxy/core/gateway";
import { isEventStream, whenSent } from "@proxy/http-surface";
import type { Context, MiddlewareHandler } from "hono";
import { routePath } from "hono/route";
import { logList, logTelemetry, logText, logWarnings } from "../observability/log-fields.js";
import type { Logger } from "../observability/logger.js";
import type { Metrics } from "../observability/metrics.js";

export interface RequestStore {
  readonly requestId: string;
  summary?: TurnSummary;
}

/** The request scope, shared with the logger so every line logged inside a request carries its id. */
export const createRequestScope = () => new AsyncLocalStorage<RequestStore>();
export type RequestScope = ReturnType<typeof createRequestScope>;

/**
 * Per-request context without globals in handlers: the adapters' TurnObserver drops its summary
 * into this request's AsyncLocalStorage slot, and the log line is written when the body has been
 * fully sent (streams included). A stream's time to first byte is its turn's, measured once by
 * the surface's session; a whole body's first byte is its end.
 */
export const createRequestContext = (deps: {
  readonly logger: Logger;
  readonly metrics: Metrics;
  readonly scope?: RequestScope;
  readonly now?: () => number;
  /** More observers of each turn (usage accounting, traces), told after the metrics. */
  readonly observers?: ReadonlyArray<TurnObserver> | undefined;
}) => {
  const storage = deps.scope ?? createRequestScope();
  const now = deps.now ?? (() => performance.now());

  const observer: TurnObserver = {
    onTurnEnd(summary) {
      const store = storage.getStore();
      if (store) store.summary = summary;
      deps.metrics.observeTurn(summary);
      for (const o of deps.observers ?? []) o.onTurnEnd(summary);
    },
  };

  // `routePath` maps every handler matched (the middlewares included) on each call. A static
  // route's answer is its own path, the same for every request to it from the same handler, so it
  // is remembered; a pattern's (`/v1/responses/:id`) is not, which keeps the map as small as the
  // route table whatever paths clients send.
  const staticRoutes = new Map<string, { readonly method: string; readonly index: number }>();
  const routeOf = (c: Context): string => {
    const path = c.req.path;
    const method = c.req.method;
    const index = c.req.routeIndex;
    const known = staticRoutes.get(path);
    if (known !== undefined && known.method === method && known.index === index) return path;
    const route = routePath(c);
    if (route === path) staticRoutes.set(path, { method, index });
    return route || path;
  };

  const middleware: MiddlewareHandler = async (c, next) => {
    const started = now();
    const incoming = c.req.header("x-request-id");
    const requestId = incoming && /^[\w.:-]{1,128}$/.test(incoming) ? incoming : randomUUID();
    const store: RequestStore = { requestId };
    const log = deps.logger;
    c.set("requestId", requestId);
    await storage.run(store, next);
    // On the response's own headers: `c.header` after the handler rebuilds the response around a
    // web stream of its body, which costs node-server its direct write of a string body.
    c.res.headers.set("x-request-id", requestId);
    const route = routeOf(c);
    const finish = (ttfb: number | undefined) => {
      const duration = now() - started;
      const s = store.summary;
      deps.metrics.observeRequest(
        route,
        c.req.method,
        c.res.status,
        duration / 1000,
        ttfb === undefined ? undefined : ttfb / 1000,
      );
      log.info(
        {
          requestId,
          // Client-chosen strings are cut (log-fields.ts): an unmatched path, the model, names.
          route: logText(route),
          method: c.req.method,
          status: c.res.status,
          durationMs: Math.round(duration),
          ttfbMs: ttfb === undefined ? undefined : Math.round(ttfb),
          model: logText(s?.model),
          modelRoute: s?.telemetry.route,
          stream: s?.stream,
          toolCalls: s?.telemetry.callsEmitted,
          tools: s?.telemetry.calledTools.length ? logList(s.telemetry.calledTools) : undefined,
          outputMode: s?.outputMode,
          toolMode: s?.telemetry.toolMode,
          finish: s?.finish,
          error: s?.error?.kind,
          // The turn finished with its complete calls; the backend failed afterwards.
          failureAfterCalls: logText(s?.telemetry.failureAfterCalls?.message),
          turnTtfbMs: s?.ttfbMs === undefined ? undefined : Math.round(s.ttfbMs),
          // The turn's result: tools offered, call ids, parser and gate counts, backend turn id.
          turn: s === undefined ? undefined : logTelemetry(s.telemetry),
        },
        "request",
      );
      // Calls accepted with a caveat, on their own line so they can be searched for.
      if (s !== undefined && s.telemetry.toolWarnings.length > 0)
        log.warn(
          {
            requestId,
            repairs: s.telemetry.repairs,
            schemaWarnings: s.telemetry.schemaWarnings,
            warnings: logWarnings(s.telemetry.toolWarnings),
          },
          "tool calls accepted with warnings",
        );
    };
    // Only a stream's end comes after the handler returned; any other body is whole and
    // node-server writes it directly once this returns (reading `c.res.body` here would turn that
    // write into a web-stream pipe), so its line is logged on the next turn of the loop.
    if (!isEventStream(c.res)) {
      setImmediate(() => finish(now() - started));
      return;
    }
    whenSent(c, () => {
      const ttfb = store.summary?.ttfbMs;
      // The turn's clock starts a little later and ticks in whole ms: never past the request's end.
      finish(ttfb === undefined ? undefined : Math.min(ttfb, now() - started));
    });
  };

  return { middleware, observer };
};
