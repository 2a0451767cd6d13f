/** The pino-compatible subset the adapter logs through: `(obj, msg)`. */
export interface Logger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

const noop = () => {};

/** The default: a backend is silent unless the composition root hands it a logger. */
export const silentLogger: Logger = { debug: noop, info: noop, warn: noop, error: noop };
