import { type Logger, pino } from "pino";

/** Structured JSON logs; human-readable when attached to a terminal. Keys are never logged. */
export const createLogger = (
  level: string,
  options: { readonly pretty?: boolean; readonly requestId?: () => string | undefined } = {},
): Logger =>
  pino({
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
    ...((options.pretty ?? Boolean(process.stdout.isTTY))
      ? { transport: { target: "pino-pretty", options: { colorize: true, singleLine: true } } }
      : {}),
  });

export type { Logger };
