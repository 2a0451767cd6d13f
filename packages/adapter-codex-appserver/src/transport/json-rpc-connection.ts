import type { Readable, Writable } from "node:stream";
import type { Logger } from "../logger.js";
import { createLineDecoder } from "./line-decoder.js";
import {
  ConnectionClosedError,
  JSON_RPC_METHOD_NOT_FOUND,
  JsonRpcError,
  RequestAbortedError,
  RequestTimeoutError,
} from "./rpc-errors.js";

type Json = Record<string, unknown>;

export interface RequestOptions {
  readonly signal?: AbortSignal | undefined;
  readonly timeoutMs?: number | undefined;
}

/** Answers one server→client request; throw a `JsonRpcError` to reply with an error. */
export type ServerRequestHandler = (method: string, params: unknown) => Promise<unknown> | unknown;

export interface JsonRpcConnection {
  request<T = unknown>(method: string, params: unknown, options?: RequestOptions): Promise<T>;
  notify(method: string, params?: unknown): Promise<void>;
  /** Requests sent and not yet answered. */
  pendingCount(): number;
  /** Reject everything pending and refuse further writes (idempotent). */
  close(reason?: Error): void;
}

export interface JsonRpcConnectionOptions {
  readonly input: Readable;
  readonly output: Writable;
  readonly logger: Logger;
  readonly maxLineLength?: number | undefined;
  /** Lines nobody reads, told from their first characters: skipped while they stream, never parsed. */
  readonly skipLine?: ((head: string) => boolean) | undefined;
  /** The member of a line, told from its first characters, whose value nobody reads (cut out unparsed). */
  readonly elideMember?: ((head: string) => string | undefined) | undefined;
  /** `size`: the notification's line length, what holding it costs (before parsing overhead). */
  readonly onNotification: (method: string, params: unknown, size: number) => void;
  readonly onServerRequest?: ServerRequestHandler;
  /** Called once when the input ends or `close()` is called. */
  readonly onClose?: (reason: Error) => void;
  /** How each request this side sent ended (for metrics). */
  readonly onResult?: RpcResultObserver | undefined;
}

/**
 * `outcome`: `ok`, the JSON-RPC error code as text, or `timeout` / `aborted` / `closed`. Methods are
 * the ones this adapter sends, so the label set stays small.
 */
export type RpcResultObserver = (method: string, outcome: string) => void;

const outcomeOf = (e: Error): string =>
  e instanceof JsonRpcError
    ? String(e.code)
    : e instanceof RequestTimeoutError
      ? "timeout"
      : e instanceof RequestAbortedError
        ? "aborted"
        : "closed";

/**
 * Notifications that can carry a whole answer (the completed turn with its items, a raw call item
 * with its arguments): dropping one would leave a long turn unfinished, so they may be this many
 * times longer than any other line. Codex writes `method` first, so the line's head identifies them.
 */
const ANSWER_CARRYING = /^\{"method":"(turn\/completed|rawResponseItem\/completed)"/;
const LARGE_LINE_FACTOR = 16;

/** Lines from this size up are written in a later turn of the event loop than they are serialised. */
const LARGE_LINE_CHARS = 1 << 20;
const yieldToLoop = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

const isObject = (u: unknown): u is Json => typeof u === "object" && u !== null && !Array.isArray(u);

/**
 * JSON-RPC "lite" as codex app-server speaks it: newline-delimited, no `jsonrpc` field sent (one
 * received is ignored). Pending requests live in this closure's `Map`; writes wait for `drain`.
 * Garbage, truncated or oversized lines and unknown messages are logged and survived.
 */
export const createJsonRpcConnection = (options: JsonRpcConnectionOptions): JsonRpcConnection => {
  const { input, output, logger } = options;
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let nextId = 1;
  let closedWith: Error | undefined;
  let writeChain: Promise<void> = Promise.resolve();
  const closeListeners = new Set<() => void>();

  const writeLine = (message: Json): Promise<void> => {
    const line = `${JSON.stringify(message)}\n`;
    // Serialising a turn with a 5 MB photo takes tens of ms; writing it (a UTF-8 copy) follows in a
    // later turn of the event loop, so the two never add up to one long hold.
    const ready = line.length < LARGE_LINE_CHARS ? writeChain : writeChain.then(yieldToLoop);
    const next = ready.then(
      () =>
        new Promise<void>((resolve, reject) => {
          if (closedWith) return reject(closedWith);
          if (output.write(line)) return resolve();
          // Backpressure: hold further writes until the pipe drains (or the connection dies).
          const done = () => {
            output.off("drain", done);
            closeListeners.delete(done);
            if (closedWith) reject(closedWith);
            else resolve();
          };
          output.on("drain", done);
          closeListeners.add(done);
        }),
    );
    writeChain = next.catch(() => {});
    return next;
  };

  const answerServerRequest = async (id: unknown, method: string, params: unknown) => {
    try {
      if (!options.onServerRequest)
        throw new JsonRpcError(JSON_RPC_METHOD_NOT_FOUND, `unsupported: ${method}`);
      const result = await options.onServerRequest(method, params);
      await writeLine({ id, result: result ?? {} });
    } catch (e) {
      const error =
        e instanceof JsonRpcError
          ? { code: e.code, message: e.message }
          : { code: -32603, message: String(e) };
      await writeLine({ id, error }).catch(() => {});
    }
  };

  const receive = (line: string) => {
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      logger.warn(
        { line: line.slice(0, 200), length: line.length },
        "app-server: unparseable stdout line dropped",
      );
      return;
    }
    if (!isObject(message)) {
      logger.warn({ line: line.slice(0, 200) }, "app-server: non-object message dropped");
      return;
    }
    const { id, method } = message;
    if (typeof method === "string") {
      if (id !== undefined && id !== null) void answerServerRequest(id, method, message.params);
      else options.onNotification(method, message.params, line.length);
      return;
    }
    const entry = typeof id === "number" ? pending.get(id) : undefined;
    if (entry === undefined) {
      logger.warn({ id }, "app-server: response to an unknown request id dropped");
      return;
    }
    pending.delete(id as number);
    if (isObject(message.error)) {
      const { code, message: text, data } = message.error;
      entry.reject(new JsonRpcError(typeof code === "number" ? code : -32603, String(text ?? "error"), data));
    } else {
      entry.resolve(message.result);
    }
  };

  const maxLineLength = options.maxLineLength ?? 16 * 1024 * 1024;
  const decoder = createLineDecoder({
    maxLineLength,
    largeLineLength: maxLineLength * LARGE_LINE_FACTOR,
    allowLarge: (head) => ANSWER_CARRYING.test(head),
    ...(options.skipLine ? { skip: options.skipLine } : {}),
    ...(options.elideMember ? { elide: options.elideMember } : {}),
    onDrop: (d) => logger.warn({ length: d.length }, "app-server: oversized stdout line dropped"),
  });
  const onData = (chunk: Buffer | string) => {
    for (const line of decoder.push(chunk)) receive(line);
  };
  const close = (reason: Error = new ConnectionClosedError()) => {
    if (closedWith) return;
    for (const line of decoder.flush()) receive(line);
    closedWith = reason;
    input.off("data", onData);
    for (const entry of pending.values()) entry.reject(reason);
    pending.clear();
    for (const listener of [...closeListeners]) listener();
    options.onClose?.(reason);
  };
  input.on("data", onData);
  input.once("end", () => close(new ConnectionClosedError("app-server closed its stdout")));
  input.once("close", () => close(new ConnectionClosedError("app-server closed its stdout")));
  // EPIPE and the like: the process went away (its exit is reported apart); no stack to tell.
  output.on("error", (e: NodeJS.ErrnoException) =>
    logger.warn({ code: e.code, detail: e.message }, "app-server: stdin write failed"),
  );

  return {
    request<T>(method: string, params: unknown, opts: RequestOptions = {}): Promise<T> {
      if (closedWith) {
        options.onResult?.(method, "closed");
        return Promise.reject(closedWith);
      }
      if (opts.signal?.aborted) {
        options.onResult?.(method, "aborted");
        return Promise.reject(new RequestAbortedError(method));
      }
      const id = nextId++;
      return new Promise<T>((resolve, reject) => {
        let timer: ReturnType<typeof setTimeout> | undefined;
        const cleanup = () => {
          if (timer) clearTimeout(timer);
          opts.signal?.removeEventListener("abort", onAbort);
        };
        const fail = (e: Error) => {
          cleanup();
          pending.delete(id);
          options.onResult?.(method, outcomeOf(e));
          reject(e);
        };
        function onAbort() {
          fail(new RequestAbortedError(method));
        }
        pending.set(id, {
          resolve: (v) => {
            cleanup();
            options.onResult?.(method, "ok");
            resolve(v as T);
          },
          reject: fail,
        });
        opts.signal?.addEventListener("abort", onAbort, { once: true });
        if (opts.timeoutMs !== undefined && opts.timeoutMs > 0) {
          const ms = opts.timeoutMs;
          timer = setTimeout(() => fail(new RequestTimeoutError(method, ms)), ms);
        }
        writeLine({ id, method, params }).catch(fail);
      });
    },
    notify: (method, params) => writeLine(params === undefined ? { method } : { method, params }),
    pendingCount: () => pending.size,
    close,
  };
};
