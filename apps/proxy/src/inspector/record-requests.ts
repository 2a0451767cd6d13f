import type { Transformer } from "node:stream/web";
import { hostRequestId, type RequestTrace, requestCaller } from "@proxy/http-surface";
import type { Context, MiddlewareHandler } from "hono";
import { routePath } from "hono/route";
import { callerOf } from "../http/auth.js";
import { isEventStream } from "../http/request-context.js";
import type { Redactor } from "./redact.js";
import type { RequestLog, RequestRecord } from "./request-log.js";
import { createTraceRecorder } from "./trace-recorder.js";
import type { TrafficStats } from "./traffic-stats.js";

/** Paths whose requests are recorded: the API surfaces, not the inspector or the probes. */
const isApiPath = (path: string) => path.startsWith("/v1/") || path.startsWith("/v1beta/");
/** An error body larger than this is not copied into the log. */
const MAX_ERROR_BODY = 64 * 1024;

interface Entry {
  readonly record: RequestRecord;
  readonly elapsed: () => number;
}

/**
 * Records each API request into the log (one middleware) and hands its turn a trace recorder
 * (`traceFor`, given to the surfaces). A request is done when its body has been sent in full.
 */
export const createRequestRecording = (deps: {
  readonly log: RequestLog;
  readonly stats: TrafficStats;
  readonly bodies: boolean;
  readonly redactor: Redactor;
  readonly apiKeys: ReadonlyArray<string>;
}) => {
  const { log, stats } = deps;
  const entries = new WeakMap<Request, Entry>();
  // Keys are named by their place in PROXY_API_KEYS; the key itself is never shown.
  const keyNames = new Map(deps.apiKeys.map((k, i) => [callerOf(k).owner, `key ${i + 1}`]));

  const finish = (entry: Entry) => {
    const { record } = entry;
    if (record.done) return;
    record.timings.totalMs = Math.round(entry.elapsed());
    const failed = record.status >= 400 || record.error !== "";
    stats.observe({ failed, toolCalls: record.toolCalls, ttftMs: record.timings.firstTokenMs });
    log.finish(record);
  };

  const copyErrorBody = async (c: Context, record: RequestRecord) => {
    const type = c.res.headers.get("content-type") ?? "";
    const length = Number(c.res.headers.get("content-length") ?? "0");
    if (c.res.status < 400 || !type.includes("json") || length > MAX_ERROR_BODY) return;
    const body: unknown = await c.res
      .clone()
      .json()
      .catch(() => undefined);
    if (body !== undefined && log.grow(record, JSON.stringify(body).length)) record.errorBody = body;
  };

  const middleware: MiddlewareHandler = async (c, next) => {
    if (!isApiPath(c.req.path)) return next();
    const started = performance.now();
    const record = log.open({
      requestId: hostRequestId(c) ?? "",
      at: Date.now(),
      method: c.req.method,
      path: c.req.path,
    });
    const entry: Entry = { record, elapsed: () => performance.now() - started };
    entries.set(c.req.raw, entry);
    try {
      await next();
    } finally {
      record.status = c.res.status;
      record.route = routePath(c) || c.req.path;
      const caller = requestCaller(c);
      record.keyName = caller?.owner ? (keyNames.get(caller.owner) ?? "unknown key") : "";
    }
    await copyErrorBody(c, record);
    // A whole body is sent as it is once this returns; wrapping it would cost node-server its direct write.
    if (!isEventStream(c.res)) return finish(entry);
    const body = c.res.body;
    if (!body) return finish(entry);
    const tap = new TransformStream<Uint8Array, Uint8Array>({
      flush: () => finish(entry),
      cancel: () => finish(entry),
    } as Transformer<Uint8Array, Uint8Array>);
    c.res = new Response(body.pipeThrough(tap), c.res);
  };

  /** The trace for a request being recorded (the surfaces' `trace` dependency). */
  const traceFor = (c: Context): RequestTrace | undefined => {
    const entry = entries.get(c.req.raw);
    if (entry === undefined) return undefined;
    return createTraceRecorder({
      log,
      record: entry.record,
      bodies: deps.bodies,
      redactor: deps.redactor,
      elapsed: entry.elapsed,
      headers: () => c.req.header(),
    });
  };

  return { middleware, traceFor };
};
