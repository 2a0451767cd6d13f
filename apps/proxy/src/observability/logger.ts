import * as Context from "effect/Context";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import * as Layer from "effect/Layer";
import type * as Scope from "effect/Scope";
import { type Logger, pino } from "pino";

export interface LoggerOptions {
  readonly pretty?: boolean;
  readonly requestId?: () => string | undefined;
}

/** A logger and the wait for its lines to leave. */
export interface OpenLog {
  readonly logger: Logger;
  /** Resolves once every line logged so far has been written (at most `timeoutMs`): call it last before exiting. */
  written(timeoutMs?: number): Promise<void>;
}

/**
 * Structured JSON logs; human-readable when attached to a terminal. Keys are never logged.
 * Lines go to stdout asynchronously: a slow reader of the pipe no longer holds the event loop in
 * a blocking write. They leave in batches of `BATCH_BYTES`, or `FLUSH_MS` after they were logged
 * when fewer come: under load one write (a thread-pool round trip) carries several requests'
 * lines instead of one each. Whatever is still queued when the process exits is written
 * synchronously then (pino's exit hook); a clean shutdown waits for `written()` first, so its
 * last lines leave whole and in order.
 */
/** Log bytes gathered before a write… */
const BATCH_BYTES = 8 * 1024;
/** …or how long a line waits at most for others to share its write. */
const FLUSH_MS = 100;

export const openLog = (level: string, options: LoggerOptions = {}): OpenLog => {
  const pretty = options.pretty ?? Boolean(process.stdout.isTTY);
  const settings = {
    level,
    base: { service: "proxy-gateway" },
    // Lines logged while a request is being handled carry its id (AsyncLocalStorage scope).
    mixin: () => {
      const requestId = options.requestId?.();
      return requestId === undefined ? {} : { requestId };
    },
    redact: {
      paths: ["req.headers.authorization", "headers.authorization", "apiKeys", "adminKey", "otelHeaders"],
      censor: "[redacted]",
    },
  };
  if (pretty) {
    const logger = pino({
      ...settings,
      transport: { target: "pino-pretty", options: { colorize: true, singleLine: true } },
    });
    return { logger, written: () => Promise.resolve() };
  }
  const destination = pino.destination({
    dest: 1,
    sync: false,
    minLength: BATCH_BYTES,
    periodicFlush: FLUSH_MS,
  });
  return {
    logger: pino(settings, destination),
    // The write of the lines held so far ends with `drain` once nothing is left behind it.
    written: (timeoutMs = 2000) =>
      new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          destination.off("drain", done);
          resolve();
        };
        const timer = setTimeout(done, timeoutMs);
        timer.unref();
        destination.on("drain", done);
        destination.flush();
      }),
  };
};

export const createLogger = (level: string, options: LoggerOptions = {}): Logger =>
  openLog(level, options).logger;

/**
 * The gateway's log as a scoped resource: opened first, closed last (every other resource logs
 * into it). Closing it writes out what is still queued; after a clean shutdown its last line is
 * "stopped" (a start that failed says why on stderr, not here).
 */
export class Log extends Context.Service<Log, OpenLog>()("@proxy/gateway/Log") {
  static readonly make = (open: () => OpenLog): Effect.Effect<OpenLog, never, Scope.Scope> =>
    Effect.acquireRelease(Effect.sync(open), (log, exit) =>
      Effect.promise(() => {
        if (Exit.isSuccess(exit)) log.logger.info("stopped");
        return log.written();
      }),
    );
  /** pino at `level` on stdout (see `openLog`). */
  static readonly layer = (level: string, options: LoggerOptions = {}) =>
    Layer.effect(
      Log,
      Log.make(() => openLog(level, options)),
    );
  /** A logger the caller owns (tests, embedders): nothing of its own to write out. */
  static readonly layerFrom = (logger: Logger) =>
    Layer.effect(
      Log,
      Log.make(() => ({ logger, written: () => Promise.resolve() })),
    );
}

export type { Logger };
