import { type BackendBatch, type BackendEvent, GatewayError } from "@proxy/core";
import { describe, type ExitInfo, type ThreadListener } from "../transport/app-server-process.js";
import type { AsyncQueue } from "./async-queue.js";
import { providerAnswered, refusalOf } from "./turn-acceptance.js";
import type { TurnMapper } from "./turn-mapper.js";

/** What a turn's queue carries: its thread's notifications and what else can end the turn. */
export type Signal =
  | {
      readonly kind: "note";
      readonly method: string;
      readonly params: Record<string, unknown>;
      /** What holding it costs; 0 for what is not counted (held tool requests). */
      readonly bytes: number;
    }
  | { readonly kind: "exit"; readonly info: ExitInfo }
  | { readonly kind: "abort" }
  | { readonly kind: "timeout" }
  | { readonly kind: "overflow" };

/** How long an aborted turn waits for codex's usage before it ends. */
const USAGE_DRAIN_MS = 1_000;

export interface TurnReading {
  readonly queue: AsyncQueue<Signal>;
  readonly mapper: TurnMapper;
  readonly maxPendingNotificationBytes: number;
  /** Bytes of notifications queued and not yet read (the producer adds, reading subtracts). */
  readonly pending: { bytes: number };
  readonly turnTimeoutMs: number;
  /** Registers something to undo when the turn ends. */
  readonly onCleanup: (cleanup: () => void) => void;
  /**
   * `stream-start`, held back until the model provider answered (see turn-acceptance.ts) and then
   * sent ahead of the first batch; a failure before it is thrown (a refusal: an HTTP status).
   */
  readonly start: BackendEvent;
  /** Told when `start` went out. */
  readonly onStarted: () => void;
}

/** What a parsed notification costs beyond its line: the objects and strings JSON.parse made. */
const NOTE_OVERHEAD_BYTES = 256;

/**
 * The thread's listener: queues each notification while the turn holds at most `maxBytes` of them
 * unread (`pending`, which reading lowers); past that, one `overflow` and nothing more. codex's
 * stdout is shared by every turn of its process and cannot be paused for one.
 */
export const queueNotifications = (
  queue: AsyncQueue<Signal>,
  pending: { bytes: number },
  maxBytes: number,
): ThreadListener => {
  let overflowed = false;
  return (method, params, size) => {
    // A held tool request (size 0) is not counted: codex waits for its answer, it sends no more.
    if (size === 0) return queue.push({ kind: "note", method, params, bytes: 0 });
    if (overflowed) return;
    const bytes = size + NOTE_OVERHEAD_BYTES;
    if (pending.bytes + bytes <= maxBytes) {
      pending.bytes += bytes;
      return queue.push({ kind: "note", method, params, bytes });
    }
    // The consumer is blocked: the turn is interrupted when it reads the failure or is aborted.
    overflowed = true;
    queue.push({ kind: "overflow" });
  };
};

/**
 * Reads one turn's queue into batches: every signal already queued when the consumer pulls is
 * mapped in one pass. Ends after the batch that ends the turn (terminal event, failure), or when
 * the queue ends. An abort (the consumer stopped on purpose) passes on only codex's usage, for a
 * bounded moment, then ends.
 */
export async function* readTurn(r: TurnReading): AsyncGenerator<BackendBatch> {
  const { queue, mapper } = r;
  let batch: BackendEvent[] = [];
  let draining = false;
  let start: BackendEvent | undefined = r.start;
  let answered = false;
  const fail = (error: GatewayError): boolean => {
    batch.push({ type: "error", error });
    return true;
  };
  /** Maps one queued signal into `batch`; true when the turn's stream ends with it. */
  const take = (next: Signal): boolean => {
    if (next.kind === "note") r.pending.bytes -= next.bytes;
    if (next.kind === "abort") {
      // Stopped on purpose (stop-after-tools, a policy breach): the interrupt is on its way, and
      // codex's usage for what it already generated may still come with the interrupted turn's end.
      if (draining) return false;
      draining = true;
      const timer = setTimeout(() => queue.push({ kind: "timeout" }), USAGE_DRAIN_MS);
      r.onCleanup(() => clearTimeout(timer));
      return false;
    }
    if (draining) {
      if (next.kind !== "note") return true;
      for (const event of mapper.map(next.method, next.params)) if (event.type === "usage") batch.push(event);
      return mapper.done();
    }
    switch (next.kind) {
      case "exit": {
        const why = `codex app-server died mid-turn (${describe(next.info)})`;
        return fail(new GatewayError("backend_unavailable", why, { retryAfterSeconds: 1 }));
      }
      case "overflow": {
        const why = `the client stopped reading: more than ${r.maxPendingNotificationBytes} bytes of backend events were waiting`;
        return fail(new GatewayError("timeout", why));
      }
      case "timeout":
        return fail(new GatewayError("timeout", `codex turn exceeded ${r.turnTimeoutMs} ms`));
      default:
        if (!answered && providerAnswered(next.method, next.params)) answered = true;
        for (const event of mapper.map(next.method, next.params)) batch.push(event);
        return mapper.done();
    }
  };
  for (;;) {
    const next = await queue.next();
    if (next === undefined) return;
    let ended = take(next);
    // The provider's answer is handed on at once, as `stream-start` alone.
    let cut = ended || (start !== undefined && answered);
    for (let more = cut ? undefined : queue.shift(); more !== undefined; more = queue.shift()) {
      ended = take(more);
      cut = ended || (start !== undefined && answered);
      if (cut) break;
    }
    if (start !== undefined && (batch.length > 0 || answered)) {
      const refusal = refusalOf(batch);
      if (refusal !== undefined) throw refusal;
      batch.unshift(start);
      start = undefined;
      r.onStarted();
    }
    if (batch.length > 0) {
      const full = batch;
      batch = [];
      yield full;
    }
    if (ended) return;
  }
}
