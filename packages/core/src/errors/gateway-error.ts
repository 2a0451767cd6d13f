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
  | "backend_auth" // the backend cannot authenticate upstream (not logged in, key missing or refused): only its operator can fix it
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
  /** `context_length_exceeded`: the tokens the model takes, where the backend knows it. */
  readonly contextWindow?: number | undefined;
  /** `context_length_exceeded`: the tokens the refused input held (counted or estimated). */
  readonly inputTokens?: number | undefined;
}

/** The longest wait the gateway passes on (an upstream's `Retry-After` may say years): one day. */
export const MAX_RETRY_AFTER_SECONDS = 86_400;

export class GatewayError extends Error {
  readonly _tag = "GatewayError" as const;
  readonly kind: GatewayErrorKind;
  readonly param: string | null;
  readonly code: string;
  readonly retryAfterSeconds: number | undefined;
  readonly contextWindow: number | undefined;
  readonly inputTokens: number | undefined;

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
    this.contextWindow = options.contextWindow;
    this.inputTokens = options.inputTokens;
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

/**
 * A full context window as each client reads it: the input's tokens and the model's window. The
 * window is the backend's (absent when it does not know it); the input's tokens are what the backend
 * counted, else the gateway's estimate, and at least one more than the window the model refused.
 */
export const contextOverflow = (
  error: GatewayError,
): { inputTokens: number; contextWindow: number } | undefined => {
  const { contextWindow, inputTokens } = error;
  if (error.kind !== "context_length_exceeded" || contextWindow === undefined) return undefined;
  return { contextWindow, inputTokens: Math.max(inputTokens ?? 0, contextWindow + 1) };
};

/** The same failure with the refused input's token count, where the backend did not give one. */
export const withInputTokens = (error: GatewayError, inputTokens: number): GatewayError =>
  error.inputTokens !== undefined
    ? error
    : new GatewayError(error.kind, error.message, {
        param: error.param ?? undefined,
        code: error.code,
        retryAfterSeconds: error.retryAfterSeconds,
        cause: error.cause,
        contextWindow: error.contextWindow,
        inputTokens,
      });

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

/** The `code` (OpenAI's) of a refusal naming a model nobody serves here. */
export const MODEL_NOT_FOUND = "model_not_found";

/** A 404 about the request's `model`: unknown to the gateway or refused by the model provider. */
export const modelNotFound = (message: string, cause?: unknown): GatewayError =>
  new GatewayError("not_found", message, { param: "model", code: MODEL_NOT_FOUND, cause });

const MODEL_REFUSAL =
  /\bmodel\b.{0,160}?\b(?:is not supported|not supported|does not exist|not found|is unknown|is not available|not available)\b|\b(?:unknown|unsupported|nonexistent) model\b/i;

/**
 * Whether a model provider's refusal is about the model ("The model `x` does not exist", "The 'x'
 * model is not supported when using Codex with a ChatGPT account", Ollama's `model "x" not found`).
 */
export const refusesModel = (message: string): boolean => MODEL_REFUSAL.test(message);

export const invalidRequest = (message: string, param?: string, code?: string): GatewayError =>
  new GatewayError("invalid_request", message, { param, code: code ?? "invalid_request" });
