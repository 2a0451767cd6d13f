import type { ThreadListener } from "../transport/app-server-process.js";
import type { FlowAccount } from "../transport/stdout-flow.js";
import type { AsyncQueue } from "./async-queue.js";
import { keptParams } from "./kept-notifications.js";
import type { Signal, TextRun } from "./turn-signals.js";

/** What a parsed notification costs beyond its line: the objects and strings JSON.parse made. */
const NOTE_OVERHEAD_BYTES = 256;
/** Once a turn holds this much, consecutive deltas are kept as runs of their text. */
const COMPACT_FROM_BYTES = 64 * 1024;
/** Deltas per run; a full run is joined into one string. */
const RUN_PIECES = 256;
/** What a run costs beyond its text, and each piece until it is joined. */
const RUN_OVERHEAD_BYTES = 128;
const PIECE_OVERHEAD_BYTES = 24;

const isDelta = (method: string): method is TextRun["method"] =>
  method === "item/agentMessage/delta" || method === "item/reasoning/summaryTextDelta";

export interface TurnInbox {
  /** The thread's listener: what the turn reads of each notification, queued and counted. */
  readonly listener: ThreadListener;
  /** The reader stopped reading on purpose: what is queued no longer counts against the app-server. */
  abandon(): void;
  /** The reader stalled: what is queued is let go, it gets `stalled` next, and nothing more is queued. */
  stall(): void;
}

/**
 * The producer side of a turn's queue. Keeps only what the turn reads (`keptParams`; injected
 * history's calls, which the turn never reports, are dropped too) and counts what it holds in the
 * process's `account`; nothing is refused for its size. Once the reader is behind by
 * `COMPACT_FROM_BYTES`, consecutive text deltas are merged into runs, so a paused reader holds the
 * answer's text, not one parsed notification per delta.
 */
export const createTurnInbox = (
  queue: AsyncQueue<Signal>,
  account: FlowAccount,
  historyCallIds: ReadonlySet<string>,
): TurnInbox => {
  let stopped = false;
  const addToRun = (run: TextRun, delta: string) => {
    run.pieces.push(delta);
    let bytes = delta.length + PIECE_OVERHEAD_BYTES;
    if (run.pieces.length === RUN_PIECES) {
      // Full: one string from now on (the next delta starts a new run).
      const text = run.pieces.join("");
      run.pieces = [text];
      run.full = true;
      bytes -= RUN_PIECES * PIECE_OVERHEAD_BYTES;
    }
    run.bytes += bytes;
    account.add(bytes);
  };
  const queueDelta = (method: TextRun["method"], params: Record<string, unknown>): boolean => {
    const { delta, turnId, summaryIndex } = params;
    if (typeof delta !== "string" || account.held() < COMPACT_FROM_BYTES) return false;
    const tail = queue.last();
    if (
      tail?.kind === "run" &&
      !tail.full &&
      tail.method === method &&
      tail.turnId === turnId &&
      tail.summaryIndex === summaryIndex
    ) {
      addToRun(tail, delta);
      return true;
    }
    const run: TextRun = { kind: "run", method, turnId, summaryIndex, pieces: [], full: false, bytes: 0 };
    account.add(RUN_OVERHEAD_BYTES);
    run.bytes = RUN_OVERHEAD_BYTES;
    queue.push(run);
    addToRun(run, delta);
    return true;
  };
  const listener: ThreadListener = (method, params, size) => {
    if (stopped) return;
    const kept = keptParams(method, params);
    if (kept === undefined) return;
    if (method === "rawResponseItem/completed") {
      const callId = (kept.item as { call_id?: unknown }).call_id;
      if (typeof callId === "string" && historyCallIds.has(callId)) return;
    }
    if (isDelta(method) && queueDelta(method, kept)) return;
    // A held tool request (size 0) is not counted: codex waits for its answer, it sends no more.
    const bytes = size === 0 ? 0 : kept === params ? size + NOTE_OVERHEAD_BYTES : NOTE_OVERHEAD_BYTES;
    account.add(bytes);
    queue.push({ kind: "note", method, params: kept, bytes });
  };
  return {
    listener,
    abandon: () => account.close(),
    stall() {
      if (stopped) return;
      stopped = true;
      queue.clear();
      account.close();
      queue.push({ kind: "stalled" });
    },
  };
};
