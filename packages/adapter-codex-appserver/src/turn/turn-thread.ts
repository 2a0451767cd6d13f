import { type BackendRequest, GatewayError } from "@proxy/core";
import type { Logger } from "../logger.js";
import type { ProcessPool } from "../pool/process-pool.js";
import type { ThreadSource } from "../pool/warm-threads.js";
import { hostedToolsConfig } from "../sealing/hosted-tools.js";
import { freeThread } from "../threads/free-thread.js";
import type { LiveThread, LiveThreads } from "../threads/live-threads.js";
import { openThreadChannel } from "../threads/thread-channel.js";
import type { CodexTurnInput } from "./codex-input.js";
import { conversationRoot, takeContinuation } from "./continuation.js";
import { nativeThreadParams } from "./native-tools.js";
import type { ToolNames } from "./tool-names.js";
import type { HeldThread } from "./turn-control.js";

export interface ThreadContext {
  readonly pool: ProcessPool;
  readonly threads: ThreadSource;
  readonly live: LiveThreads | undefined;
  readonly rawEvents: () => boolean;
  readonly sealedParams: () => Promise<Record<string, unknown>>;
  readonly requestTimeoutMs: number;
  readonly startWaitMs: number;
  readonly pendingToolRequests: { count: number };
  /** Threads are durable (so revertible) and deleted when let go; else ephemeral. */
  readonly durableThreads: boolean;
  readonly logger: Logger;
}

/** Resolves with `promise`'s value, or `undefined` as soon as `signal` aborts. */
export const unlessAborted = <T>(promise: Promise<T>, signal: AbortSignal): Promise<T | undefined> =>
  new Promise((resolve, reject) => {
    if (signal.aborted) return resolve(undefined);
    const onAbort = () => resolve(undefined);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });

/**
 * `thread/revert` before `turnId`: codex drops that turn and every later one (the history injected
 * before it stays); a turn still open at tool calls it ends first, its cancelled calls reverted
 * with it, and their held requests are refused here (codex ignores answers to them). The thread as
 * it is then (idle), or `undefined` when codex refused (the caller lets it go).
 */
export const revertThread = async (
  ctx: Pick<ThreadContext, "requestTimeoutMs" | "logger">,
  thread: LiveThread,
  turnId: string,
): Promise<LiveThread | undefined> => {
  const { threadId } = thread.channel;
  const reverted = await thread.proc.connection
    .request("thread/revert", { threadId, beforeTurnId: turnId }, { timeoutMs: ctx.requestTimeoutMs })
    .then(
      () => true,
      (err: unknown) => {
        ctx.logger.debug({ err, threadId }, "codex thread/revert failed; starting a fresh thread");
        return false;
      },
    );
  if (!reverted) return undefined;
  if (thread.openTurnId === undefined) return thread;
  thread.channel.refuseHeld();
  return { ...thread, openTurnId: undefined };
};

/** The `thread/start` params of a request's thread (what its conversation key's root is made of). */
export const threadParamsFor = (
  ctx: Pick<ThreadContext, "live" | "rawEvents">,
  sealed: Record<string, unknown>,
  request: BackendRequest,
  names: ToolNames | undefined,
): Record<string, unknown> => ({
  ...sealed,
  ...(request.hostedTools?.webSearch
    ? { config: { ...(sealed.config as object), ...hostedToolsConfig(request.hostedTools) } }
    : {}),
  ...(request.model ? { model: request.model } : {}),
  baseInstructions: request.instructions,
  ...(request.tools && names
    ? nativeThreadParams(request.tools, names)
    : ctx.live && ctx.rawEvents()
      ? { experimentalRawEvents: true }
      : {}),
});

/**
 * The thread a request runs on: the live thread whose conversation it continues (on that thread's
 * app-server), else a new sealed thread (warm if one is ready) on the least-loaded app-server.
 * `undefined` when the request was aborted meanwhile. `onCleanup` gets the lease's release and the
 * warm source's refill, to run when the turn is over.
 */
export const acquireThread = async (
  ctx: ThreadContext,
  request: BackendRequest,
  names: ToolNames | undefined,
  toTurnInput: (r: Pick<BackendRequest, "history" | "input">) => CodexTurnInput,
  signal: AbortSignal,
  onCleanup: (cleanup: () => void) => void,
): Promise<(HeldThread & { readonly model: string }) | undefined> => {
  const threadParams = threadParamsFor(ctx, await ctx.sealedParams(), request, names);
  const found = ctx.live
    ? takeContinuation(ctx.live, conversationRoot(request, threadParams), request, toTurnInput)
    : undefined;
  let continuation = found?.continuation;
  let lease = continuation ? ctx.pool.leaseProcess(continuation.thread.proc) : undefined;
  if (continuation && lease === undefined) {
    void ctx.live?.release(continuation.thread);
    continuation = undefined;
  }
  lease ??= await ctx.pool.acquire(signal, ctx.startWaitMs);
  onCleanup(lease.release);
  const proc = lease.process;
  if (names && !proc.experimentalApi)
    throw new GatewayError(
      "invalid_request",
      "Native tool mode needs codex's experimental API, which this codex app-server refused; use tool mode auto or prompt.",
      { param: "x-proxy-tool-mode", code: "native_tools_unavailable" },
    );
  const keys = found?.keys;
  if (continuation?.revertBefore !== undefined) {
    // Should the revert fail, or the client leave meanwhile, the thread's state is unknown: let it go.
    const reverted = await revertThread(ctx, continuation.thread, continuation.revertBefore);
    if (reverted === undefined || signal.aborted) {
      void ctx.live?.release(continuation.thread);
      continuation = undefined;
      if (signal.aborted) return undefined;
    } else continuation = { ...continuation, thread: reverted };
  }
  if (continuation)
    return {
      proc,
      channel: continuation.thread.channel,
      keys,
      continuation,
      toolChars: continuation.thread.toolChars,
      model: request.model,
    };

  // Not cancelled by the signal: a thread codex creates after we stopped waiting would stay
  // loaded, so a late answer is unsubscribed instead.
  const opened = ctx.threads.open(proc, threadParams, request.partition);
  const started = await unlessAborted(opened.started, signal);
  if (started === undefined) {
    opened.started
      .then((r) => freeThread(proc.connection, r.thread.id, ctx.durableThreads, ctx.requestTimeoutMs))
      .catch(() => {});
    return undefined;
  }
  // This config worked: the next turn with it finds a thread ready (started after this turn).
  onCleanup(opened.refill);
  const channel = openThreadChannel(proc, started.thread.id, {
    holdToolCalls: names !== undefined,
    pendingGauge: ctx.pendingToolRequests,
  });
  // codex keeps a native thread's tool list for the thread's life: it counts toward the live threads' bound.
  const toolChars =
    ctx.live && "dynamicTools" in threadParams ? JSON.stringify(threadParams.dynamicTools).length : 0;
  return { proc, channel, keys, continuation: undefined, toolChars, model: started.model ?? request.model };
};
