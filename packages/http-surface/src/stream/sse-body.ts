/** Bytes a stream may hold for a client that is not reading before its writer has to wait. */
export const STREAM_BUFFER_BYTES = 64 * 1024;

/** The headers of every SSE answer (the same hono's `streamSSE` sets). */
export const SSE_HEADERS: Readonly<Record<string, string>> = {
  "Transfer-Encoding": "chunked",
  "Content-Type": "text/event-stream",
  "Cache-Control": "no-cache",
  Connection: "keep-alive",
};

const FLOWING: Promise<void> = Promise.resolve();
const LINE_BREAK = /\r\n|\r|\n/;

/** One SSE event: `event:` when named, one `data:` line per line of `data`, a blank line. */
export const sseFrame = (data: string, event?: string): string => {
  const lines = LINE_BREAK.test(data) ? `data: ${data.split(LINE_BREAK).join("\ndata: ")}` : `data: ${data}`;
  return event === undefined ? `${lines}\n\n` : `event: ${event}\n${lines}\n\n`;
};

/** Pieces up to this long are checked char by char; longer ones are left to `JSON.stringify`. */
const SHORT_TEXT = 64;

/**
 * False when `JSON.stringify(text)` is `text` between quotes (no quote, backslash, control
 * character or surrogate in it): a frame can then be built with the text as it is, which for a
 * token-sized delta costs a tenth of serialising it. Long texts always answer true.
 */
export const needsJsonEscape = (text: string): boolean => {
  if (text.length > SHORT_TEXT) return true;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c || (c >= 0xd800 && c <= 0xdfff)) return true;
  }
  return false;
};

/** `JSON.stringify(text)`, without serialising a text that needs no escape (see `needsJsonEscape`). */
export const jsonString = (text: string): string =>
  needsJsonEscape(text) ? JSON.stringify(text) : `"${text}"`;

export interface SseBodyHooks {
  /** The client went away (the response body was cancelled). */
  readonly onCancel: () => void;
  /** A write found the buffer full: the client is not reading as fast as the turn produces. */
  readonly onBlocked: () => void;
  /** The buffer drained again. */
  readonly onFlowing: () => void;
}

/**
 * A pull-based SSE response body with a bounded buffer: writes return at once while the client
 * keeps up and wait (no allocation on the flowing path) once `bufferBytes` are queued, so a paused
 * client pauses the turn, and through it the backend, instead of growing the gateway's memory.
 */
export const createSseBody = (hooks: SseBodyHooks, bufferBytes = STREAM_BUFFER_BYTES) => {
  const encoder = new TextEncoder();
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let release: (() => void) | undefined;
  let waiting: Promise<void> | undefined;
  let open = true;

  const resume = () => {
    const wake = release;
    release = undefined;
    waiting = undefined;
    wake?.();
  };

  const readable = new ReadableStream<Uint8Array>(
    {
      start(c) {
        controller = c;
      },
      pull() {
        if (waiting === undefined) return;
        resume();
        hooks.onFlowing();
      },
      cancel() {
        if (!open) return;
        open = false;
        resume();
        hooks.onCancel();
      },
    },
    { highWaterMark: bufferBytes, size: (chunk) => chunk.byteLength },
  );

  const write = (text: string): Promise<void> => {
    if (!open) return FLOWING;
    // Nothing to send (an empty batch): only wait if an earlier write is still waiting.
    if (text === "") return waiting ?? FLOWING;
    controller.enqueue(encoder.encode(text));
    if ((controller.desiredSize ?? 0) > 0) return FLOWING;
    if (waiting === undefined) {
      waiting = new Promise<void>((resolve) => {
        release = resolve;
      });
      hooks.onBlocked();
    }
    return waiting;
  };

  return {
    readable,
    write,
    send: (data: string, event?: string): Promise<void> => write(sseFrame(data, event)),
    /** A write is waiting for the client to read. */
    blocked: (): boolean => waiting !== undefined,
    open: (): boolean => open,
    /** Ends the body normally (what is buffered is still delivered). */
    close(): void {
      if (!open) return;
      open = false;
      resume();
      controller.close();
    },
    /** Stops writing without ending the body: the connection was dropped underneath it. */
    detach(): void {
      open = false;
      resume();
    },
    /** Fails the body, which makes the server drop the connection: buffered bytes are discarded. */
    abort(reason: Error): void {
      if (!open) return;
      open = false;
      resume();
      controller.error(reason);
    },
  };
};

export type SseBody = ReturnType<typeof createSseBody>;
