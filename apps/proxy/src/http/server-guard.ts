import type { Server } from "node:http";
import type { Duplex } from "node:stream";

/** Time a client has to send its request headers. */
export const HEADERS_TIMEOUT_MS = 30_000;
/** Time a client has to send its whole request (headers and body); the response may take longer. */
export const REQUEST_TIMEOUT_MS = 60_000;

/** For `http.createServer`: the deadlines above, checked every second rather than every 30 s. */
export const SERVER_OPTIONS = {
  headersTimeout: HEADERS_TIMEOUT_MS,
  requestTimeout: REQUEST_TIMEOUT_MS,
  connectionsCheckingInterval: 1_000,
} as const;

const STATUS_TEXT: Readonly<Record<number, string>> = {
  400: "Bad Request",
  408: "Request Timeout",
  431: "Request Header Fields Too Large",
};

/** Node's parser errors → the status it would have sent, and what to tell the client. */
const classify = (code: string | undefined): { status: number; message: string; code: string } => {
  switch (code) {
    case "HPE_HEADER_OVERFLOW":
      return {
        status: 431,
        message: "The request line or headers are too large.",
        code: "request_header_fields_too_large",
      };
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return {
        status: 408,
        message: `The request was not received in time (headers within ${HEADERS_TIMEOUT_MS / 1000} s, the whole request within ${REQUEST_TIMEOUT_MS / 1000} s).`,
        code: "request_timeout",
      };
    default:
      return { status: 400, message: "The request is not valid HTTP.", code: "bad_request" };
  }
};

/**
 * Hardens the listening socket where the HTTP framework cannot (with `SERVER_OPTIONS` at
 * creation, slow senders lose their connection after the deadlines above): connections beyond
 * `maxConnections` are closed at once, and the responses Node writes itself for requests it
 * cannot parse or that came too slowly carry OpenAI's error body.
 */
export const guardServer = (server: Server, options: { readonly maxConnections: number }): void => {
  server.maxConnections = options.maxConnections;
  server.on("clientError", (err: NodeJS.ErrnoException, socket: Duplex) => {
    // A reset connection cannot be answered.
    if (err.code === "ECONNRESET" || !socket.writable) {
      socket.destroy();
      return;
    }
    const { status, message, code } = classify(err.code);
    const body = JSON.stringify({ error: { message, type: "invalid_request_error", param: null, code } });
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? "Bad Request"}\r\n` +
        "Content-Type: application/json\r\n" +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        "Connection: close\r\n\r\n" +
        body,
    );
  });
};
