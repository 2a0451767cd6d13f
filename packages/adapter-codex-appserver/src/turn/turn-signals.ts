import { GatewayError } from "@proxy/core";
import type { BackendBatch, BackendEvent } from "@proxy/core/gateway";
import { describe, type ExitInfo } from "../transport/app-server-process.js";
import type { FlowAccount } from "../transport/stdout-flow.js";
import type { AsyncQueue } from "./async-queue.js";
import { providerAnswered, refusalOf } from "./turn-acceptance.js";
import type { TurnMapper } from "./turn-mapper.js";

/** Consecutive text deltas of one kind, merged while the reader is behind (see turn-inbox.ts). */
export interface TextRun {
  readonly kind: "run";
  readonly method: "item/agentMessage/delta" | "item/reasoning/summaryTextDelta";
  readonly turnId: unknown;
  readonly summaryIndex: unknown;
  pieces: string[];
  /** Joined into one piece: the next delta starts a new run. */
  full: boolean;
  bytes: number;
}

/** What a turn's queue carries: its thread's notifications and what else can end the turn. */
export type Signal =
  | {
      readonly kind: "note";
      readonly method: string;
      readonly params: Record<string, unknown>;
      /** What holding it costs; 0 for what is not counted (held tool requests). */
      readonly bytes: number;
    }
  | TextRun
  | { readonly kind: "exit"; readonly info: ExitInfo }
  | { readonly kind: "abort" }
  | { readonly kind: "timeout" }
  | { readonly kind: "stalled" };

/** How long an aborted turn waits for codex's usage before it ends. */
const USAGE_DRAIN_MS = 1_000;

export interface TurnReading {
  readonly queue: AsyncQueue<Signal>;
  readonly mapper: TurnMapper;
  /** What the queue holds, counted against the app-server's stdout (reading lowers it). */
  readonly account: FlowAccount;
  /** How long a stalled reader took nothing, for its error. */
  readonly stalledReaderMs: number;
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

/** A batch stops taking once it holds this much (a slow reader's share stays in the queue, counted). */
const MAX_BATCH_BYTES = 256 * 1024;

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
  /** Bytes taken into the batch being built. */
  let taken = 0;
  /** Maps one queued signal into `batch`; true when the turn's stream ends with it. */
  const take = (signal: Signal): boolean => {
    const next: Exclude<Signal, TextRun> =
      signal.kind === "run"
        ? {
            kind: "note",
            method: signal.method,
            params: {
              turnId: signal.turnId,
              summaryIndex: signal.summaryIndex,
              delta: signal.pieces.join(""),
            },
            bytes: signal.bytes,
          }
        : signal;
    if (next.kind === "note") taken += next.bytes;
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
      case "stalled": {
        const why = `the client stopped reading: it took nothing for ${r.stalledReaderMs} ms while codex's output waited for it`;
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
  r.account.reading();
  for (;;) {
    const next = await queue.next();
    if (next === undefined) return;
    taken = 0;
    let ended = take(next);
    // The provider's answer is handed on at once, as `stream-start` alone.
    let cut = ended || (start !== undefined && answered);
    for (let more = cut ? undefined : queue.shift(); more !== undefined; more = queue.shift()) {
      ended = take(more);
      cut = ended || (start !== undefined && answered) || taken >= MAX_BATCH_BYTES;
      if (cut) break;
    }
    r.account.take(taken);
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
