import { type Logger, pino } from "pino";

/** Structured JSON logs; human-readable when attached to a terminal. Keys are never logged. */
export const createLogger = (level: string, pretty = Boolean(process.stdout.isTTY)): Logger =>
  pino({
    level,
    base: { service: "proxy-gateway" },
    redact: {
      paths: ["req.headers.authorization", "headers.authorization", "apiKeys"],
      censor: "[redacted]",
    },
    ...(pretty
      ? { transport: { target: "pino-pretty", options: { colorize: true, singleLine: true } } }
      : {}),
  });

export type { Logger };
