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
