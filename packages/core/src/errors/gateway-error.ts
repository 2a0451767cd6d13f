/**
 * The closed set of failures the gateway reports, each with whether retrying the same request may
 * succeed. Statuses and wire shapes are deliberately absent: `@proxy/http-surface` maps a kind to
 * an HTTP status and each surface shapes the body.
 */
export type GatewayErrorKind =
  | "invalid_request" // the client's request is malformed or unsupported (names `param`)
  | "not_found"
  | "unauthorized" // missing/wrong gateway key
  | "request_too_large" // the body exceeds the configured limit
  | "backend_auth" // the backend has no usable credentials
  | "overloaded" // in-flight + queue limits reached
  | "rate_limited" // the upstream model provider throttled us
  | "context_length_exceeded"
  | "timeout"
  | "cancelled" // the client went away
  | "tool_call_validation_failed" // a strict tool call stayed invalid after corrective retries
  | "tool_choice_not_satisfied" // required/forced tool choice unmet after corrective retries
  | "backend_unavailable" // the backend process is down/restarting
  | "backend_error"; // anything else the backend reported

const RETRYABLE: ReadonlySet<GatewayErrorKind> = new Set([
  "overloaded",
  "rate_limited",
  "timeout",
  "backend_unavailable",
  "backend_error",
]);

export interface GatewayErrorOptions {
  readonly param?: string | undefined;
  readonly code?: string | undefined;
  readonly retryAfterSeconds?: number | undefined;
  readonly cause?: unknown;
}

/** The longest wait the gateway passes on (an upstream's `Retry-After` may say years): one day. */
export const MAX_RETRY_AFTER_SECONDS = 86_400;

export class GatewayError extends Error {
  readonly _tag = "GatewayError" as const;
  readonly kind: GatewayErrorKind;
  readonly param: string | null;
  readonly code: string;
  readonly retryAfterSeconds: number | undefined;

  constructor(kind: GatewayErrorKind, message: string, options: GatewayErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "GatewayError";
    this.kind = kind;
    this.param = options.param ?? null;
    this.code = options.code ?? kind;
    const retryAfter = options.retryAfterSeconds;
    this.retryAfterSeconds =
      retryAfter === undefined || Number.isNaN(retryAfter)
        ? undefined
        : Math.min(Math.max(0, retryAfter), MAX_RETRY_AFTER_SECONDS);
  }

  get retryable(): boolean {
    return RETRYABLE.has(this.kind);
  }
}

/**
 * The `code` of an `invalid_request` a backend raises because the client's input is longer than it
 * takes. The backend cannot know the surface's field names: the surface names its own
 * conversation field (`messages`, `input`, `contents`) as the error's `param`.
 */
export const INPUT_TOO_LONG = "input_too_long";

export const isGatewayError = (u: unknown): u is GatewayError =>
  typeof u === "object" && u !== null && (u as { _tag?: unknown })._tag === "GatewayError";

/** Anything thrown by a backend or a bug becomes a GatewayError without losing the cause. */
export const toGatewayError = (u: unknown): GatewayError => {
  if (isGatewayError(u)) return u;
  if (u instanceof Error && u.name === "AbortError")
    return new GatewayError("cancelled", "request cancelled", { cause: u });
  const message = u instanceof Error ? u.message : String(u);
  return new GatewayError("backend_error", message, { cause: u });
};

export const invalidRequest = (message: string, param?: string, code?: string): GatewayError =>
  new GatewayError("invalid_request", message, { param, code: code ?? "invalid_request" });
