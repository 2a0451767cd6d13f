import { type AdmissionGate, type BackendBatch, type BackendRequest, GatewayError } from "@proxy/core";
import type { Logger } from "../logger.js";
import { mapRpcError } from "../map-codex-error.js";
import type { ProcessPool } from "../pool/process-pool.js";
import type { ThreadSource } from "../pool/warm-threads.js";
import type { ConversationKey } from "../threads/conversation-key.js";
import { type LiveThreads, releaseThread } from "../threads/live-threads.js";
import { openThreadChannel, type ThreadChannel } from "../threads/thread-channel.js";
import type { AppServerProcess } from "../transport/app-server-process.js";
import { createAsyncQueue } from "./async-queue.js";
import { toCodexTurnInput } from "./codex-input.js";
import {
  type Continuation,
  conversationRoot,
  nextConversationKey,
  takeContinuation,
} from "./continuation.js";
import { nativeThreadParams, nativeToolNames } from "./native-tools.js";
import { createTurnMapper, type TurnMapper } from "./turn-mapper.js";
import { readTurn, type Signal } from "./turn-signals.js";

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
  /**
   * Notifications a turn may hold for a consumer that stopped reading. codex's stdout is shared by
   * every turn of its process and cannot be paused for one, so beyond this the turn fails instead.
   */
  readonly maxPendingNotifications: number;
}

interface TurnStartResult {
  readonly turn: { readonly id: string };
}

/** Resolves with `promise`'s value, or `undefined` as soon as `signal` aborts. */
const unlessAborted = <T>(promise: Promise<T>, signal: AbortSignal): Promise<T | undefined> =>
  new Promise((resolve, reject) => {
    if (signal.aborted) return resolve(undefined);
    const onAbort = () => resolve(undefined);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });

/** The conversation's size in chars, roughly what codex holds for it (the live threads' memory bound). */
const conversationChars = (request: BackendRequest, mapper: TurnMapper): number => {
  let chars = request.instructions.length + mapper.reply().text.length;
  for (const m of request.history)
    if ("content" in m) for (const p of m.content) chars += p.type === "text" ? p.text.length : p.url.length;
    else if ("toolCalls" in m) for (const c of m.toolCalls) chars += c.arguments.length + c.name.length;
    else chars += m.output.length;
  for (const p of request.input) chars += p.type === "text" ? p.text.length : p.url.length;
  return chars;
};

/**
 * One request = one turn on a sealed codex thread. A request that continues a live thread's
 * conversation runs on that thread with only its new items (answering codex's open tool calls with
 * the client's results, or `thread/inject_items` + `turn/start`); any other starts a thread:
 * `thread/start` → `thread/inject_items` (history) → `turn/start`. Then notifications until the turn
 * ends for the client; the thread is kept for the conversation's next request when it ended cleanly,
 * and let go otherwise. Aborting `signal` sends `turn/interrupt` at once; the iterable then yields
 * only codex's usage and ends (within a second). Failures before `stream-start` are thrown, after it
 * they are `error` events. Yields batches: everything queued when the consumer pulls, in one pass.
 */
export async function* runCodexTurn(
  ctx: TurnContext,
  request: BackendRequest,
  signal: AbortSignal,
): AsyncGenerator<BackendBatch> {
  const names = nativeToolNames(request);
  const toTurnInput = (r: Pick<BackendRequest, "history" | "input">) =>
    toCodexTurnInput(r, {
      allowRemoteImages: ctx.allowRemoteImages,
      ...(names ? { codexName: names.toCodex } : {}),
    });
  const plan = toTurnInput(request); // checks the images before anything starts
  const { logger } = ctx;
  let releaseAdmission: (() => void) | undefined;
  try {
    releaseAdmission = await ctx.admission.acquire(signal);
  } catch (e) {
    if (signal.aborted) return;
    throw e;
  }
  const queue = createAsyncQueue<Signal>();
  const cleanups: Array<() => void> = [releaseAdmission];
  let phase = "thread/start";
  let streamStarted = false;
  /** The thread this request holds, once it has one: kept for the conversation or let go at the end. */
  let held:
    | {
        proc: AppServerProcess;
        channel: ThreadChannel;
        keys: ConversationKey[] | undefined;
        continuation: Continuation | undefined;
      }
    | undefined;
  let mapper: TurnMapper | undefined;
  let turnStart: Promise<TurnStartResult> | undefined;
  let turnId: string | undefined;
  let interrupt: Promise<unknown> | undefined;
  /** codex's turn is still running (not completed, failed or interrupted inside codex). */
  const turnOpen = () => {
    const ending = mapper?.ending();
    return ending === undefined || ending === "tool_calls" || ending === "broken";
  };
  const sendInterrupt = () => {
    if (interrupt || held === undefined || turnId === undefined || !turnOpen()) return;
    const { proc, channel } = held;
    interrupt = proc.connection.request(
      "turn/interrupt",
      { threadId: channel.threadId, turnId },
      { timeoutMs: ctx.requestTimeoutMs },
    );
    interrupt.catch((err: unknown) => logger.debug({ err }, "codex turn/interrupt failed"));
  };
  const onAbort = () => {
    queue.push({ kind: "abort" });
    sendInterrupt();
  };
  signal.addEventListener("abort", onAbort, { once: true });
  cleanups.push(() => signal.removeEventListener("abort", onAbort));
  if (ctx.turnTimeoutMs > 0) {
    const timer = setTimeout(() => queue.push({ kind: "timeout" }), ctx.turnTimeoutMs);
    cleanups.push(() => clearTimeout(timer));
  }

  /** Keeps the thread for the conversation's next request when this turn ended cleanly, else lets it go. */
  const settleThread = () => {
    if (held === undefined) return;
    const { proc, channel, keys, continuation } = held;
    const turn = mapper;
    const ending = turn?.ending();
    const reply = turn?.reply();
    const waiting = new Set(channel.pendingCalls());
    const parkable =
      ctx.live !== undefined &&
      keys !== undefined &&
      turn !== undefined &&
      reply !== undefined &&
      !signal.aborted &&
      interrupt === undefined &&
      proc.isAlive() &&
      reply.responses === 1 &&
      (ending === "completed" ||
        (ending === "tool_calls" &&
          waiting.size === reply.calls.length &&
          reply.calls.every((c) => waiting.has(c.callId))));
    if (parkable) {
      channel.detach();
      ctx.live?.park(nextConversationKey(keys, request, reply), {
        proc,
        channel,
        openTurnId: ending === "tool_calls" ? turnId : undefined,
        usageTotal: turn.threadTotal() ?? continuation?.thread.usageTotal,
        size: conversationChars(request, turn),
      });
      return;
    }
    // Interrupt (once a turn exists and is still running), then let the thread go — in the
    // background, so neither the abort listener nor the generator's exit waits on codex.
    void (async () => {
      await turnStart?.catch(() => {});
      sendInterrupt();
      await interrupt?.catch(() => {});
      releaseThread(proc, channel, undefined, ctx);
    })();
  };

  try {
    const sealed = await ctx.sealedParams();
    const threadParams = {
      ...sealed,
      ...(request.model ? { model: request.model } : {}),
      baseInstructions: request.instructions,
      ...(request.tools && names
        ? nativeThreadParams(request.tools, names)
        : ctx.live && ctx.rawEvents()
          ? { experimentalRawEvents: true }
          : {}),
    };
    const found = ctx.live
      ? takeContinuation(ctx.live, conversationRoot(request, threadParams), request, toTurnInput)
      : undefined;
    let continuation = found?.continuation;
    let lease = continuation ? ctx.pool.leaseProcess(continuation.thread.proc) : undefined;
    if (continuation && lease === undefined) {
      ctx.live?.release(continuation.thread);
      continuation = undefined;
    }
    lease ??= await ctx.pool.acquire(signal, ctx.startWaitMs);
    cleanups.push(lease.release);
    const proc = lease.process;
    const rpc = proc.connection;
    cleanups.push(proc.onExit((info) => queue.push({ kind: "exit", info })));
    if (names && !proc.experimentalApi)
      throw new GatewayError(
        "invalid_request",
        "Native tool mode needs codex's experimental API, which this codex app-server refused; use tool mode auto or prompt.",
        { param: "x-proxy-tool-mode", code: "native_tools_unavailable" },
      );

    let model = request.model;
    let channel: ThreadChannel;
    if (continuation) channel = continuation.thread.channel;
    else {
      // Not cancelled by the signal: a thread codex creates after we stopped waiting would stay
      // loaded, so a late answer is unsubscribed instead.
      const opened = ctx.threads.open(proc, threadParams, request.partition);
      const started = await unlessAborted(opened.started, signal);
      if (started === undefined) {
        opened.started
          .then((r) =>
            rpc.request("thread/unsubscribe", { threadId: r.thread.id }, { timeoutMs: ctx.requestTimeoutMs }),
          )
          .catch(() => {});
        return;
      }
      model = started.model ?? request.model;
      // This config worked: the next turn with it finds a thread ready (started after this turn).
      cleanups.push(opened.refill);
      channel = openThreadChannel(proc, started.thread.id, {
        holdToolCalls: names !== undefined,
        pendingGauge: ctx.pendingToolRequests,
      });
    }
    held = { proc, channel, keys: found?.keys, continuation };
    let overflowed = false;
    channel.attach((method, params) => {
      if (overflowed) return;
      if (queue.size() < ctx.maxPendingNotifications) return queue.push({ kind: "note", method, params });
      // The consumer is blocked: the turn is interrupted when it reads the failure or is aborted.
      overflowed = true;
      queue.push({ kind: "overflow" });
    });

    const threadId = channel.threadId;
    if (continuation !== undefined && continuation.thread.openTurnId !== undefined) {
      // codex's turn waits on the model's tool calls: the client's results let it go on.
      turnId = continuation.thread.openTurnId;
      for (const { callId, output } of continuation.answers) channel.answer(callId, output);
    } else {
      const input = continuation?.turn ?? plan;
      phase = "thread/inject_items";
      if (input.inject.length > 0)
        await rpc.request(
          "thread/inject_items",
          { threadId, items: input.inject },
          { signal, timeoutMs: ctx.requestTimeoutMs },
        );
      if (signal.aborted) return;
      phase = "turn/start";
      // Not cancelled by the signal: if the client aborts meanwhile, the turn still starts inside
      // codex and must be interrupted as soon as its id is known.
      turnStart = rpc.request<TurnStartResult>(
        "turn/start",
        {
          threadId,
          input: input.input,
          ...(request.reasoningEffort ? { effort: request.reasoningEffort } : {}),
          ...(request.reasoningSummary ? { summary: request.reasoningSummary } : {}),
          ...(request.outputSchema ? { outputSchema: request.outputSchema } : {}),
        },
        { timeoutMs: ctx.requestTimeoutMs },
      );
      turnStart.then(
        (r) => {
          turnId = r.turn.id;
          if (signal.aborted) sendInterrupt();
        },
        (err: unknown) => logger.debug({ err, threadId }, "codex turn/start failed"),
      );
      const ack = await unlessAborted(turnStart, signal);
      if (ack === undefined) return;
      turnId = ack.turn.id;
    }
    streamStarted = true;
    yield [{ type: "stream-start", model, turnId }];

    const historyCallIds = new Set(
      request.history.flatMap((m) => ("toolCalls" in m ? m.toolCalls.map((c) => c.callId) : [])),
    );
    mapper = createTurnMapper(logger, {
      names,
      historyCallIds,
      turnId,
      usageBefore: continuation?.thread.usageTotal,
    });
    yield* readTurn({
      queue,
      mapper,
      maxPendingNotifications: ctx.maxPendingNotifications,
      turnTimeoutMs: ctx.turnTimeoutMs,
      onCleanup: (cleanup) => cleanups.push(cleanup),
    });
  } catch (e) {
    if (signal.aborted) return;
    const error = mapRpcError(e, phase);
    if (!streamStarted) throw error;
    yield [{ type: "error", error }];
  } finally {
    queue.end();
    settleThread();
    for (const cleanup of cleanups.reverse()) cleanup();
  }
}
