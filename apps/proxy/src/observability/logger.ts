import { type Logger, pino } from "pino";

/**
 * Structured JSON logs; human-readable when attached to a terminal. Keys are never logged.
 * Lines go to stdout asynchronously: a slow reader of the pipe no longer holds the event loop in
 * a blocking write, and under load the lines that come while a write is in flight leave in one.
 * pino flushes what is left synchronously when the process exits: no line is lost at shutdown.
 */
export const createLogger = (
  level: string,
  options: { readonly pretty?: boolean; readonly requestId?: () => string | undefined } = {},
): Logger => {
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
  return pretty
    ? pino({
        ...settings,
        transport: { target: "pino-pretty", options: { colorize: true, singleLine: true } },
      })
    : pino(settings, pino.destination({ dest: 1, sync: false }));
};

export type { Logger };
