import type { BackendRequest } from "@proxy/core";
import type { AdmissionGate, BackendBatch } from "@proxy/core/gateway";
import type { Logger } from "../logger.js";
import { mapRpcError } from "../map-codex-error.js";
import type { ProcessPool } from "../pool/process-pool.js";
import type { ThreadSource } from "../pool/warm-threads.js";
import type { LiveThreads } from "../threads/live-threads.js";
import { createAsyncQueue } from "./async-queue.js";
import { toCodexTurnInput } from "./codex-input.js";
import { compactNatively } from "./native-compaction.js";
import { nativeToolNames } from "./native-tools.js";
import { createTurnControl } from "./turn-control.js";
import { createTurnInbox, type TurnInbox } from "./turn-inbox.js";
import { createTurnMapper } from "./turn-mapper.js";
import { readTurn, type Signal } from "./turn-signals.js";
import { startTurn } from "./turn-start.js";
import { acquireThread } from "./turn-thread.js";

export interface TurnContext {
  readonly pool: ProcessPool;
  /** Where a new thread comes from: pre-started for its exact config, or started now. */
  readonly threads: ThreadSource;
  /** Threads kept alive to continue their conversation; absent = one thread per request. */
  readonly live: LiveThreads | undefined;
  readonly admission: AdmissionGate;
  /**
   * codex accepted the experimental API: prompt threads get raw events too, which tell a turn
   * where codex sampled again on its own (such a thread holds items the client never saw).
   */
  readonly rawEvents: () => boolean;
  readonly logger: Logger;
  /** The sealed `thread/start` params (waits for the sealed catalog on first use). */
  readonly sealedParams: () => Promise<Record<string, unknown>>;
  readonly allowRemoteImages: boolean;
  /** Per JSON-RPC request (thread/start, inject_items, turn/start). */
  readonly requestTimeoutMs: number;
  /** How long a request waits for a (re)starting app-server. */
  readonly startWaitMs: number;
  /** Whole-turn limit; 0 = none. */
  readonly turnTimeoutMs: number;
  /** `item/tool/call` requests of native turns not yet answered, across the backend (a gauge). */
  readonly pendingToolRequests: { count: number };
  /** How long a reader may take nothing while codex's output waits for it (see stdout-flow.ts). */
  readonly stalledReaderMs: number;
  /**
   * Threads are durable (`ephemeral: false`, written under CODEX_HOME/sessions) so an edited
   * conversation can revert its thread; each is deleted when let go.
   */
  readonly durableThreads: boolean;
  /** The model's context window in tokens, from the sealed catalog (undefined for a model it lacks). */
  readonly contextWindowOf: (model: string) => number | undefined;
  /** Lets a thread's raw messages through the line filter meanwhile (a compaction's summary). */
  readonly readRawMessages?: ((threadId: string) => () => void) | undefined;
}

/**
 * One request = one turn on a sealed codex thread. A request that continues a live thread's
 * conversation runs on that thread with only its new items; any other starts a thread
 * (`thread/start` → `thread/inject_items` with the history → `turn/start`). Then notifications until
 * the turn ends for the client; the thread is kept for the conversation's next request when it ended
 * cleanly, and let go otherwise. Aborting `signal` sends `turn/interrupt` at once; the iterable then
 * yields only codex's usage and ends (within a second). `stream-start` waits until the model
 * provider answered (see turn-acceptance.ts): failures before it are thrown (an HTTP status for the
 * client), after it they are `error` events. Yields batches: everything queued when the consumer pulls.
 */
export async function* runCodexTurn(
  ctx: TurnContext,
  request: BackendRequest,
  signal: AbortSignal,
): AsyncGenerator<BackendBatch> {
  if (request.compaction !== undefined) {
    // A compaction of a conversation whose live thread this backend holds: codex's own compaction.
    const native = await compactNatively(ctx, request, signal).catch((e: unknown) => {
      if (signal.aborted) return null;
      throw e;
    });
    if (native === null) return;
    if (native !== undefined) return yield* native;
  }
  const names = nativeToolNames(request);
  const toTurnInput = (r: Pick<BackendRequest, "history" | "input">) =>
    toCodexTurnInput(r, {
      allowRemoteImages: ctx.allowRemoteImages,
      ...(names ? { codexName: names.toCodex } : {}),
    });
  const plan = toTurnInput(request); // checks the images before anything starts
  let releaseAdmission: (() => void) | undefined;
  try {
    releaseAdmission = await ctx.admission.acquire(signal);
  } catch (e) {
    if (signal.aborted) return;
    throw e;
  }
  const queue = createAsyncQueue<Signal>();
  const cleanups: Array<() => void> = [releaseAdmission];
  const onCleanup = (cleanup: () => void) => cleanups.push(cleanup);
  const control = createTurnControl(ctx, request, signal);
  let phase = "thread/start";
  let streamStarted = false;
  const historyCallIds = new Set(
    request.history.flatMap((m) => ("toolCalls" in m ? m.toolCalls.map((c) => c.callId) : [])),
  );
  let inbox: TurnInbox | undefined;
  const onAbort = () => {
    inbox?.abandon();
    queue.push({ kind: "abort" });
    control.interrupt();
  };
  signal.addEventListener("abort", onAbort, { once: true });
  onCleanup(() => signal.removeEventListener("abort", onAbort));
  if (ctx.turnTimeoutMs > 0) {
    const timer = setTimeout(() => queue.push({ kind: "timeout" }), ctx.turnTimeoutMs);
    onCleanup(() => clearTimeout(timer));
  }

  try {
    const thread = await acquireThread(ctx, request, names, toTurnInput, signal, onCleanup);
    if (thread === undefined) return;
    onCleanup(thread.proc.onExit((info) => queue.push({ kind: "exit", info })));
    control.hold(thread);
    const account = thread.proc.flow.open(() => {
      inbox?.stall();
      control.interrupt();
    });
    onCleanup(account.close);
    inbox = createTurnInbox(queue, account, historyCallIds);
    thread.channel.attach(inbox.listener);
    const input = thread.continuation?.turn ?? plan;
    const turnId = await startTurn(ctx, request, thread, input, control, signal, (p) => {
      phase = p;
    });
    if (turnId === undefined) return;
    control.started(turnId);

    const mapper = createTurnMapper(ctx.logger, {
      names,
      historyCallIds,
      turnId,
      usageBefore: thread.continuation?.usageBefore,
      contextWindow: ctx.contextWindowOf(thread.model),
      webSearch: request.hostedTools?.webSearch !== undefined,
    });
    control.reading(mapper);
    yield* readTurn({
      queue,
      mapper,
      account,
      stalledReaderMs: ctx.stalledReaderMs,
      turnTimeoutMs: ctx.turnTimeoutMs,
      onCleanup,
      start: { type: "stream-start", model: thread.model, turnId },
      onStarted: () => {
        streamStarted = true;
      },
    });
  } catch (e) {
    if (signal.aborted) return;
    const error = mapRpcError(e, phase);
    if (!streamStarted) throw error;
    yield [{ type: "error", error }];
  } finally {
    queue.end();
    control.settle();
    for (const cleanup of cleanups.reverse()) cleanup();
  }
}
