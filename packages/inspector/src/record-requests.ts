import {
  hostRequestId,
  isEventStream,
  type RequestTrace,
  requestCaller,
  whenSent,
} from "@proxy/http-surface";
import type { Context, MiddlewareHandler } from "hono";
import { routePath } from "hono/route";
import { FIELD_LIMITS, keepErrorBody } from "./bounded.js";
import type { InspectorKeys } from "./ports.js";
import type { Redactor } from "./redact.js";
import type { RequestLog, RequestRecord } from "./request-log.js";
import { createTraceRecorder } from "./trace-recorder.js";
import type { TrafficStats } from "./traffic-stats.js";

/** Paths whose requests are recorded: the API surfaces, not the inspector or the probes. */
const isApiPath = (path: string) => path.startsWith("/v1/") || path.startsWith("/v1beta/");
/** An error body larger than this is not read back from the answer. */
const MAX_ERROR_BODY = 64 * 1024;

interface Entry {
  readonly fields: Pick<RequestRecord, "requestId" | "at" | "method" | "path">;
  /** Set once the request is admitted to the log (after the key check). */
  record: RequestRecord | undefined;
  readonly elapsed: () => number;
}

/** The JSON error body of an answer, read up to `MAX_ERROR_BODY` bytes (undefined past that). */
const readErrorBody = async (res: Response): Promise<unknown> => {
  const reader = res.clone().body?.getReader();
  if (reader === undefined) return undefined;
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_ERROR_BODY) {
      await reader.cancel();
      return { note: `an error body over ${MAX_ERROR_BODY} bytes, not kept` };
    }
    chunks.push(value);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    return undefined;
  }
};

/**
 * Records each API request into the log (one middleware) and hands its turn a trace recorder
 * (`traceFor`, given to the surfaces). A request enters the log only once the API key check has
 * let it in (a surface asking for its trace, or a caller set when it ends); one the check refused
 * goes to the log's small ring of refused requests, so unauthenticated traffic can never push real
 * records out. A request is done when its body has been sent in full.
 */
export const createRequestRecording = (deps: {
  readonly log: RequestLog;
  readonly stats: TrafficStats;
  readonly bodies: boolean;
  readonly redactor: Redactor;
  readonly apiKeys: ReadonlyArray<string>;
  readonly keys: InspectorKeys;
}) => {
  const { log, stats, redactor } = deps;
  const entries = new WeakMap<Request, Entry>();
  // Keys are named by their place in PROXY_API_KEYS; the key itself is never shown.
  const keyNames = new Map(deps.apiKeys.map((k, i) => [deps.keys.callerOf(k).owner, `key ${i + 1}`]));

  const finish = (entry: Entry, record: RequestRecord) => {
    if (record.done) return;
    record.timings.totalMs = Math.round(entry.elapsed());
    stats.observe({
      status: record.status,
      error: record.error !== "",
      toolCalls: record.toolCalls,
      ttftMs: record.timings.firstTokenMs,
    });
    log.finish(record);
  };

  const copyErrorBody = async (c: Context, record: RequestRecord) => {
    if (record.errorBody !== undefined || c.res.status < 400) return;
    if (!(c.res.headers.get("content-type") ?? "").includes("json")) return;
    if (Number(c.res.headers.get("content-length") ?? "0") > MAX_ERROR_BODY) return;
    const body = await readErrorBody(c.res);
    if (body !== undefined) keepErrorBody(log, redactor, record, body, deps.bodies);
  };

  /** Into the log's ring for what the key check decided; undefined when it never ran (a preflight). */
  const admitAtEnd = (c: Context, entry: Entry): RequestRecord | undefined => {
    if (requestCaller(c) !== undefined) return log.open(entry.fields, "kept");
    return c.res.status === 401 || c.res.status === 403 ? log.open(entry.fields, "refused") : undefined;
  };

  const middleware: MiddlewareHandler = async (c, next) => {
    if (!isApiPath(c.req.path)) return next();
    const started = performance.now();
    const entry: Entry = {
      fields: {
        requestId: redactor.cut(hostRequestId(c) ?? "", FIELD_LIMITS.requestId),
        at: Date.now(),
        method: c.req.method,
        path: redactor.cut(c.req.path, FIELD_LIMITS.path),
      },
      record: undefined,
      elapsed: () => performance.now() - started,
    };
    entries.set(c.req.raw, entry);
    let record: RequestRecord | undefined;
    try {
      await next();
    } finally {
      record = entry.record ?? admitAtEnd(c, entry);
      if (record !== undefined) {
        record.status = c.res.status;
        // A request answered by a middleware (refused) matched no route of its own: its path.
        const route = routePath(c);
        record.route = redactor.cut(route && route !== "/*" ? route : c.req.path, FIELD_LIMITS.path);
        const caller = requestCaller(c);
        record.keyName = caller?.owner ? (keyNames.get(caller.owner) ?? "unknown key") : "";
        log.count(record, record.route.length);
      }
    }
    if (record === undefined) return;
    const done = record;
    await copyErrorBody(c, done);
    // A whole body is sent as it is once this returns; wrapping it would cost node-server its direct write.
    if (!isEventStream(c.res)) return finish(entry, done);
    whenSent(c, () => finish(entry, done));
  };

  /** The trace for a request being recorded (the surfaces' `trace` dependency): past the key check. */
  const traceFor = (c: Context): RequestTrace | undefined => {
    const entry = entries.get(c.req.raw);
    if (entry === undefined) return undefined;
    entry.record ??= log.open(entry.fields, "kept");
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
