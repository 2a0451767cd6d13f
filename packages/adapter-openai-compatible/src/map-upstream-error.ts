import { GatewayError, modelNotFound, refusesModel, withoutUrls } from "@proxy/core";

/** Upstream messages may name hosts, paths or keys of the deployment: never pass a URL on. */
const redact = (message: string): string => withoutUrls(message).replace(/\s+/g, " ").trim().slice(0, 300);

const detail = (message: string | undefined) => (message ? `: ${redact(message)}` : "");

/** Seconds from a `Retry-After` header (seconds or an HTTP date); GatewayError caps it at a day. */
const retryAfter = (header: string | undefined): number | undefined => {
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.ceil(seconds);
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - Date.now()) / 1000));
};

const CONTEXT_LENGTH =
  /context (length|window|size)|maximum context|too many tokens|exceeds the (available )?context/i;

/**
 * The window and the input's tokens in an upstream's context-length message: OpenAI's and vLLM's
 * "maximum context length is M tokens. However, your messages resulted in / you requested N tokens",
 * llama.cpp's "request (N tokens) exceeds the available context size (M tokens)".
 */
const contextNumbers = (message: string): { contextWindow?: number; inputTokens?: number } => {
  const openai =
    /maximum context length is (\d+) tokens\. However, (?:your messages resulted in|you requested) (\d+) tokens/i.exec(
      message,
    );
  if (openai) return { contextWindow: Number(openai[1]), inputTokens: Number(openai[2]) };
  const llama = /request \((\d+) tokens\) exceeds the available context size \((\d+) tokens\)/i.exec(message);
  if (llama) return { contextWindow: Number(llama[2]), inputTokens: Number(llama[1]) };
  return {};
};

/**
 * A non-2xx upstream answer as the gateway's error kind, naming the route (never the URL). A refusal
 * keeps its meaning: credentials are the operator's to fix, an unknown model is a 404, any other 4xx
 * is the client's bad request in the upstream's own words; only 408, 429 and 5xx may be retried.
 */
export const mapUpstreamStatus = (
  route: string,
  status: number,
  message: string | undefined,
  retryAfterHeader?: string,
): GatewayError => {
  const where = `route '${route}': the upstream model server answered HTTP ${status}`;
  const cause = { status, message };
  if (status === 401 || status === 403)
    return new GatewayError(
      "backend_auth",
      `${where}: it refused the gateway's credentials; check the route's apiKeyEnv${detail(message)}`,
      { code: "upstream_auth_failed", cause },
    );
  if (status === 429)
    return new GatewayError("rate_limited", `${where} (rate limited)${detail(message)}`, {
      code: "rate_limit_exceeded",
      retryAfterSeconds: retryAfter(retryAfterHeader) ?? 1,
      cause,
    });
  // A model the upstream does not serve (a 404, or a 400 saying so): the client may pick another.
  if (status === 404 || ((status === 400 || status === 422) && message && refusesModel(message)))
    return modelNotFound(`${where}: it does not serve this route's upstreamModel${detail(message)}`, cause);
  if (status === 408)
    return new GatewayError("timeout", `${where} (request timeout)${detail(message)}`, { cause });
  if (status >= 400 && status < 500) {
    if (message && CONTEXT_LENGTH.test(message))
      return new GatewayError("context_length_exceeded", `${where}${detail(message)}`, {
        code: "context_length_exceeded",
        cause,
        ...contextNumbers(message),
      });
    return new GatewayError("invalid_request", `${where}${detail(message)}`, {
      code: "upstream_rejected",
      cause,
    });
  }
  if (status === 503)
    return new GatewayError(
      "backend_unavailable",
      `${where} (unavailable, e.g. still loading the model)${detail(message)}`,
      {
        retryAfterSeconds: retryAfter(retryAfterHeader) ?? 2,
        cause,
      },
    );
  return new GatewayError("backend_error", `${where}${detail(message)}`, { code: "upstream_error", cause });
};

const CONNECT_CODES = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "UND_ERR_CONNECT_TIMEOUT",
]);

const codeOf = (e: unknown): string | undefined => {
  for (let x = e, depth = 0; typeof x === "object" && x !== null && depth < 4; depth++) {
    const code = (x as { code?: unknown }).code;
    if (typeof code === "string") return code;
    x = (x as { cause?: unknown }).cause;
  }
  return undefined;
};

/** Whether a transport failure means the upstream could not be reached at all (route down). */
export const isUnreachable = (e: unknown): boolean => {
  const code = codeOf(e);
  return code !== undefined && CONNECT_CODES.has(code);
};

/** A transport failure (refused, timed out, reset) as the gateway's error kind, naming the route. */
export const mapTransportError = (route: string, e: unknown): GatewayError => {
  const code = codeOf(e);
  if (e instanceof Error && e.name === "AbortError")
    return new GatewayError("cancelled", "request cancelled", { cause: e });
  if (isUnreachable(e))
    return new GatewayError(
      "backend_unavailable",
      `route '${route}': the upstream model server is unreachable (${code})`,
      { code: "upstream_unreachable", retryAfterSeconds: 5, cause: e },
    );
  if (code === "UND_ERR_HEADERS_TIMEOUT" || code === "UND_ERR_BODY_TIMEOUT")
    return new GatewayError(
      "timeout",
      `route '${route}': the upstream model server stopped responding (${code})`,
      {
        cause: e,
      },
    );
  return new GatewayError(
    "backend_error",
    `route '${route}': the connection to the upstream model server failed${code ? ` (${code})` : ""}`,
    { code: "upstream_connection_failed", cause: e },
  );
};
