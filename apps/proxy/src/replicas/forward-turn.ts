import { GatewayError } from "@proxy/core";
import type { BackendBatch } from "@proxy/core/gateway";
import {
  type ForwardedTurn,
  fromWireBatch,
  fromWireError,
  INTERNAL_TURN_PATH,
  REPLICA_SECRET_HEADER,
  type TurnLine,
} from "./wire.js";

/** Where a forwarded turn went: the owner's batches, or why the forwarder must run it itself. */
export type Forwarded =
  | { readonly kind: "streaming"; readonly batches: AsyncIterable<BackendBatch> }
  | { readonly kind: "unavailable"; readonly why: string };

export interface ForwardOptions {
  readonly owner: string;
  readonly secret: string;
  /** No answer, or once streaming no line (a heartbeat included), for this long: the owner is gone. */
  readonly timeoutMs: number;
  readonly signal: AbortSignal;
}

const ownerStopped = () =>
  new GatewayError(
    "backend_unavailable",
    "The gateway replica that held this conversation stopped answering mid-turn; retry the request.",
    { retryAfterSeconds: 1 },
  );

/** The turn of a client that left while it was being passed on: nothing more to say. */
async function* nothing(): AsyncGenerator<BackendBatch> {}

/** The body's NDJSON lines; `idle` re-arms the watchdog at each chunk read. */
async function* readLines(body: ReadableStream<Uint8Array>, idle: () => void): AsyncGenerator<TurnLine> {
  const decoder = new TextDecoder();
  let buffered = "";
  for await (const chunk of body) {
    idle();
    buffered += decoder.decode(chunk, { stream: true });
    let end = buffered.indexOf("\n");
    while (end !== -1) {
      const line = buffered.slice(0, end);
      buffered = buffered.slice(end + 1);
      if (line !== "") yield JSON.parse(line) as TurnLine;
      end = buffered.indexOf("\n");
    }
  }
}

/**
 * Sends `turn` to the replica that holds its conversation and streams that replica's backend
 * events back. Until the owner's first batch anything wrong (no connection, a refusal, no answer
 * within the timeout) is `unavailable`, so the caller runs the turn itself on a fresh thread; after
 * it, the owner going quiet ends the turn with a retryable error (the client has seen output).
 */
export const forwardTurn = async (turn: ForwardedTurn, options: ForwardOptions): Promise<Forwarded> => {
  const controller = new AbortController();
  const abort = () => controller.abort();
  options.signal.addEventListener("abort", abort, { once: true });
  // The watchdog runs only while this replica waits for the owner (the answer, the next line): a
  // client that reads slowly pauses the owner's turn through the connection, which is no silence.
  let timer: ReturnType<typeof setTimeout> | undefined;
  let quiet = false;
  const arm = () => {
    timer = setTimeout(() => {
      quiet = true;
      controller.abort();
    }, options.timeoutMs);
    timer.unref?.();
  };
  const disarm = () => {
    clearTimeout(timer);
    timer = undefined;
  };
  const idle = () => timer?.refresh();
  const done = () => {
    clearTimeout(timer);
    options.signal.removeEventListener("abort", abort);
  };
  const unavailable = (why: string): Forwarded => {
    done();
    controller.abort();
    return { kind: "unavailable", why: quiet ? `no answer within ${options.timeoutMs} ms` : why };
  };
  arm();
  let lines: AsyncGenerator<TurnLine>;
  try {
    const response = await fetch(new URL(INTERNAL_TURN_PATH, options.owner), {
      method: "POST",
      headers: { "content-type": "application/json", [REPLICA_SECRET_HEADER]: options.secret },
      body: JSON.stringify(turn),
      signal: controller.signal,
    });
    if (response.status !== 200 || response.body === null) {
      const text = await response.text().catch(() => "");
      return unavailable(`HTTP ${response.status} ${text.slice(0, 200)}`);
    }
    lines = readLines(response.body, idle);
    disarm();
  } catch (error) {
    return unavailable(
      error instanceof Error
        ? error.cause instanceof Error
          ? error.cause.message
          : error.message
        : String(error),
    );
  }
  const nextLine = async () => {
    arm();
    try {
      return await lines.next();
    } finally {
      disarm();
    }
  };
  let first: BackendBatch | undefined;
  try {
    for (;;) {
      const next = await nextLine();
      if (next.done) return unavailable("the owner ended the turn without an answer");
      const line = next.value;
      if (line.t === "beat") continue;
      if (line.t === "refused") return unavailable(`refused: ${fromWireError(line.error).message}`);
      if (line.t === "end") return unavailable("the owner ended the turn without an answer");
      first = fromWireBatch(line.events);
      break;
    }
  } catch (error) {
    if (options.signal.aborted) {
      done();
      return { kind: "streaming", batches: nothing() };
    }
    return unavailable(error instanceof Error ? error.message : String(error));
  }
  async function* rest(): AsyncGenerator<BackendBatch> {
    try {
      yield first as BackendBatch;
      for (;;) {
        let next: IteratorResult<TurnLine>;
        try {
          next = await nextLine();
        } catch {
          if (!options.signal.aborted) yield [{ type: "error", error: ownerStopped() }];
          return;
        }
        if (next.done) {
          if (!options.signal.aborted) yield [{ type: "error", error: ownerStopped() }];
          return;
        }
        const line = next.value;
        if (line.t === "end") return;
        if (line.t === "batch") yield fromWireBatch(line.events);
        else if (line.t === "refused") {
          yield [{ type: "error", error: fromWireError(line.error) }];
          return;
        }
      }
    } finally {
      done();
      controller.abort();
      await lines.return(undefined).catch(() => undefined);
    }
  }
  return { kind: "streaming", batches: rest() };
};
