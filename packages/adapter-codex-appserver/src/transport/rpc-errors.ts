/** A JSON-RPC error response from the app-server (`{id, error:{code,message,data}}`). */
export class JsonRpcError extends Error {
  readonly code: number;
  readonly data: unknown;
  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.name = "JsonRpcError";
    this.code = code;
    this.data = data;
  }
}

/** The process went away (exit, crash, closed pipe) while a request was pending. */
export class ConnectionClosedError extends Error {
  constructor(message = "app-server connection closed") {
    super(message);
    this.name = "ConnectionClosedError";
  }
}

/**
 * An app-server that exited before it was ready; `codexSays` is the reason it printed (its stderr's
 * error line, e.g. `CODEX_HOME points to "…", but that path does not exist`), when it printed one.
 */
export class AppServerStartError extends Error {
  readonly codexSays: string | undefined;
  constructor(exit: string, codexSays: string | undefined) {
    super(`codex app-server exited at start (${exit})${codexSays ? `: ${codexSays}` : ""}`);
    this.name = "AppServerStartError";
    this.codexSays = codexSays;
  }
}

/** No answer within the request timeout. */
export class RequestTimeoutError extends Error {
  readonly method: string;
  constructor(method: string, timeoutMs: number) {
    super(`app-server did not answer ${method} within ${timeoutMs} ms`);
    this.name = "RequestTimeoutError";
    this.method = method;
  }
}

/** The caller's signal aborted while waiting for the answer. */
export class RequestAbortedError extends Error {
  constructor(method: string) {
    super(`${method} aborted`);
    this.name = "AbortError";
  }
}

export const JSON_RPC_METHOD_NOT_FOUND = -32601;
