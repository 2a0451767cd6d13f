import { createKeepAlive } from "./keep-alive.js";
import { createSseBody, type SseBody, sseFrame } from "./sse-body.js";
import { createStallGuard } from "./stall-guard.js";

/**
 * One SSE stream of a session. A surface queues the frames of one batch of events and flushes
 * them as one write; every write re-arms the keep-alive timer.
 */
export interface SseSink {
  /** Queues one SSE event (`event:` line when named, then `data:`); nothing is written before `flush`. */
  queue(data: string, event?: string): void;
  /** Queues raw SSE text, e.g. a comment. */
  queueText(text: string): void;
  /**
   * Writes what is queued in one write. Resolves at once while the client keeps up; waits while
   * its buffer is full (so a slow client pauses the turn, and through it the backend).
   */
  flush(): Promise<void>;
  /** `queue` then `flush`: one SSE event on its own. */
  send(data: string, event?: string): Promise<void>;
  /** `queueText` then `flush`. */
  write(text: string): Promise<void>;
  /** The client went away: nothing more can be delivered. */
  readonly aborted: boolean;
}

export interface SseStreamHooks {
  /** The client went away (the body was cancelled). */
  readonly onCancel: () => void;
  /** The client stopped reading for the stall delay; `body` can be detached or aborted. */
  readonly onStall: (body: SseBody) => void;
  /** How long a blocked write may wait (undefined = forever). */
  readonly stallDelay: () => number | undefined;
  /** Called on every write that carries turn output (the time to first byte). */
  readonly onWrite: () => void;
  /** The signal that ends the turn (an aborted turn's sink reports `aborted`). */
  readonly signal: AbortSignal;
  readonly keepAliveFrame: string | undefined;
  readonly keepAliveMs: number;
}

/** The body, keep-alive and stall guard of one SSE answer, and the sink the surface writes through. */
export const createSseStream = (hooks: SseStreamHooks) => {
  const body = createSseBody({
    onCancel: hooks.onCancel,
    onBlocked: () => stallGuard.arm(),
    onFlowing: () => stallGuard.disarm(),
  });
  const keepAlive = createKeepAlive(hooks.keepAliveFrame, hooks.keepAliveMs, (frame) => {
    if (!body.blocked()) void body.write(frame);
  });
  // Silence counts from the moment the stream opens: a surface with no opening frames is kept alive too.
  keepAlive.rearm();
  const stallGuard = createStallGuard(() => hooks.onStall(body), hooks.stallDelay);
  let pending = "";
  const sink: SseSink = {
    queue(data, event) {
      pending += sseFrame(data, event);
    },
    queueText(text) {
      pending += text;
    },
    flush() {
      const text = pending;
      if (text === "") return body.write(text);
      pending = "";
      hooks.onWrite();
      keepAlive.rearm();
      return body.write(text);
    },
    send(data, event) {
      sink.queue(data, event);
      return sink.flush();
    },
    write(text) {
      sink.queueText(text);
      return sink.flush();
    },
    get aborted() {
      return !body.open() || hooks.signal.aborted;
    },
  };
  return {
    body,
    sink,
    /** Ends the stream normally (what is buffered is still delivered). */
    close(): void {
      keepAlive.stop();
      stallGuard.disarm();
      body.close();
    },
  };
};
