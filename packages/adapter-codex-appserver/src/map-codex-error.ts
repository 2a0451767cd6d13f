import {
  GatewayError,
  INPUT_TOO_LONG,
  isGatewayError,
  modelNotFound,
  refusesModel,
  withoutUrls as urlsReplaced,
} from "@proxy/core";
import { providerRefusal } from "./provider-refusal.js";
import {
  ConnectionClosedError,
  JsonRpcError,
  RequestAbortedError,
  RequestTimeoutError,
} from "./transport/rpc-errors.js";

/** `turn.error` / `error` notification payload (`TurnError` in the v2 protocol). */
export interface CodexTurnError {
  readonly message?: unknown;
  readonly codexErrorInfo?: unknown;
  readonly additionalDetails?: unknown;
}

/** The one fix for codex credentials the provider refused or that expired. */
const LOGIN_FIX =
  "Run `codex login` again as the gateway's user (same CODEX_HOME), or fix the API key codex's config.toml gives its model provider.";

/** `codexErrorInfo` is either a bare string (`"contextWindowExceeded"`) or `{variant: {httpStatusCode}}`. */
const variantOf = (info: unknown): { name: string; status: number | undefined } => {
  if (typeof info === "string") return { name: info, status: undefined };
  if (typeof info === "object" && info !== null) {
    const [name, body] = Object.entries(info)[0] ?? ["other", undefined];
    const status = (body as { httpStatusCode?: unknown } | null)?.httpStatusCode;
    return { name, status: typeof status === "number" ? status : undefined };
  }
  return { name: "other", status: undefined };
};

/**
 * Codex quotes the provider's address in upstream errors ("unexpected status 401 Unauthorized:
 * …, url: http://10.0.0.7/v1/responses"). Where the gateway's backend lives is not the client's
 * business: every URL leaves as a placeholder (the full text stays in the error's `cause`, for logs).
 */
const withoutUrls = (message: string): string => urlsReplaced(message.replace(/,?\s*url:\s*[^\s,]+/gi, ""));

/**
 * Codex names a provider key it could not find ("Missing environment variable: `X`."). The child
 * sees an allow-list of the gateway's environment, so say where the variable must be set.
 */
const missingEnvHint = (message: string): string | undefined => {
  const name = /Missing environment variable:\s*`?([A-Za-z_][A-Za-z0-9_]*)`?/.exec(message)?.[1];
  if (name === undefined) return undefined;
  return `${message} Set ${name} in the gateway's environment: it reaches codex when codex's config.toml names it as the env_key of the active provider (or of a profile's); otherwise add it to PROXY_CODEX_PASS_ENV (--codex-pass-env).`;
};

const isClientStatus = (status: number | undefined): status is number =>
  status !== undefined && status >= 400 && status < 500 && status !== 408 && status !== 409;

/**
 * A failed turn (its `turn.error`, or the last non-retrying `error` notification) as a GatewayError.
 * The provider's refusals keep their meaning: credentials it refused are the operator's to fix, a
 * model it does not serve is a 404, any other 4xx is the client's bad request in the provider's words.
 */
export const mapCodexTurnError = (
  error: CodexTurnError | undefined,
  /** The turn's model's context window, told with a full context. */
  contextWindow?: number,
): GatewayError => {
  const raw =
    typeof error?.message === "string" && error.message !== ""
      ? withoutUrls(error.message)
      : "codex turn failed";
  const { name, status: infoStatus } = variantOf(error?.codexErrorInfo);
  const cause = error;
  if (name === "contextWindowExceeded")
    return new GatewayError("context_length_exceeded", raw, {
      code: "context_length_exceeded",
      cause,
      contextWindow,
    });
  const refusal = providerRefusal(name, infoStatus, raw);
  const { status, text } = refusal;
  if (name === "unauthorized" || status === 401 || status === 403) {
    const why = status === undefined ? text : `HTTP ${status}: ${text}`;
    return new GatewayError(
      "backend_auth",
      `The model provider refused codex's credentials (${why}). ${LOGIN_FIX}`,
      {
        cause,
      },
    );
  }
  if (name === "usageLimitExceeded")
    return new GatewayError("rate_limited", raw, { code: "insufficient_quota", cause });
  if (status === 429 || name === "rateLimitExceeded")
    return new GatewayError("rate_limited", raw, {
      code: "rate_limit_exceeded",
      retryAfterSeconds: 5,
      cause,
    });
  const missingEnv = missingEnvHint(raw);
  if (missingEnv !== undefined) return new GatewayError("backend_auth", missingEnv, { cause });
  if (name === "modelNotFound" || (isClientStatus(status) && (status === 404 || refusesModel(text))))
    return modelNotFound(text, cause);
  if (isClientStatus(status) || name === "badRequest")
    return new GatewayError("invalid_request", text, { code: refusal.code ?? "upstream_rejected", cause });
  return new GatewayError("backend_error", raw, {
    code: name === "other" ? "backend_error" : name,
    cause,
  });
};

/** A failed JSON-RPC exchange with the app-server as a GatewayError. */
export const mapRpcError = (e: unknown, method: string): GatewayError => {
  if (isGatewayError(e)) return e;
  if (e instanceof JsonRpcError) {
    // The client's input, not a backend failure (normally refused before turn/start already).
    if (/^Input exceeds the maximum length/i.test(e.message))
      return new GatewayError(
        "invalid_request",
        `The input is too long for the codex backend: ${e.message}`,
        {
          code: INPUT_TOO_LONG,
          cause: e,
        },
      );
    if (e.code === -32600) return new GatewayError("invalid_request", withoutUrls(e.message), { cause: e });
    if (e.code === -32001)
      return new GatewayError("overloaded", `codex app-server overloaded: ${e.message}`, {
        retryAfterSeconds: 1,
        cause: e,
      });
    return new GatewayError("backend_error", `codex ${method} failed: ${withoutUrls(e.message)}`, {
      cause: e,
    });
  }
  if (e instanceof ConnectionClosedError)
    return new GatewayError(
      "backend_unavailable",
      `codex app-server went away during ${method}: ${e.message}`,
      {
        retryAfterSeconds: 1,
        cause: e,
      },
    );
  if (e instanceof RequestTimeoutError) return new GatewayError("timeout", e.message, { cause: e });
  if (e instanceof RequestAbortedError) return new GatewayError("cancelled", e.message, { cause: e });
  return new GatewayError("backend_error", e instanceof Error ? e.message : String(e), { cause: e });
};
