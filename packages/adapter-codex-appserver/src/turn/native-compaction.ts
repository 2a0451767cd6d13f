import { addUsage, type BackendRequest, GatewayError, type PromptMessage, type Usage } from "@proxy/core";
import {
  type AdmissionGate,
  type BackendBatch,
  type BackendCompaction,
  renderCompactionSummary,
} from "@proxy/core/gateway";
import { mapCodexTurnError } from "../map-codex-error.js";
import type { PoolLease } from "../pool/process-pool.js";
import { type ConversationKey, prefixKeys } from "../threads/conversation-key.js";
import type { LiveThread, LiveThreads, TurnBoundary } from "../threads/live-threads.js";
import { type ResponsesItem, toCodexTurnInput } from "./codex-input.js";
import { canReplaceTurn, conversationRoot } from "./continuation.js";
import { nativeToolNames } from "./native-tools.js";
import { toUsage } from "./turn-mapper.js";
import { revertThread, type ThreadContext, threadParamsFor } from "./turn-thread.js";

/** What a native compaction reads of the turn context (`TurnContext` has it all). */
export interface CompactionContext
  extends Pick<ThreadContext, "pool" | "rawEvents" | "sealedParams" | "logger"> {
  readonly allowRemoteImages: boolean;
  readonly live: LiveThreads | undefined;
  readonly admission: AdmissionGate;
  readonly requestTimeoutMs: number;
  readonly readRawMessages?: ((threadId: string) => () => void) | undefined;
}

/** A live thread whose conversation is exactly the one a compaction turn compacts. */
interface Compactable {
  readonly thread: LiveThread;
  readonly lease: PoolLease;
  readonly root: ConversationKey;
  readonly compaction: BackendCompaction;
  /** The conversation's messages after what the thread holds (a new prompt): injected before compacting. */
  readonly inject: ReadonlyArray<ResponsesItem>;
}

const isUserMessage = (m: PromptMessage) => "content" in m && m.role === "user";
const isNewMessage = (m: PromptMessage) => "content" in m && (m.role === "user" || m.role === "developer");

/**
 * The live thread holding `request.compaction`'s conversation, or all of it but new user messages
 * after it (Anthropic compacts with the prompt that reached its trigger), idle, removed from the
 * table. Failing that, with durable threads, one with a turn the conversation replaces (as an edit
 * does, continuation.ts): mid tool loop, the turn left open at the calls whose results the
 * conversation ends with. That turn is reverted (codex ends it) and the conversation's items after
 * it are injected: compacting the open turn as it stands would show the model codex's "cancelled"
 * outputs instead of the client's results (verified). `undefined` when there is none: the request
 * then runs as the portable summary turn. Found by the conversation key, which starts from the
 * caller's partition and the thread config, so no other caller (and no other config) can reach it.
 */
const takeCompactable = async (
  ctx: CompactionContext,
  live: LiveThreads,
  request: BackendRequest,
  compaction: BackendCompaction,
): Promise<Compactable | undefined> => {
  const conversation: BackendRequest = {
    ...request,
    instructions: compaction.instructions,
    history: compaction.history,
    tools: compaction.tools,
  };
  const params = threadParamsFor(ctx, await ctx.sealedParams(), conversation, nativeToolNames(conversation));
  // Without raw events codex tells nobody the summary it wrote: the client could not hold it.
  if (params.experimentalRawEvents !== true || ctx.readRawMessages === undefined) return undefined;
  const root = conversationRoot(conversation, params);
  const keys = prefixKeys(root, compaction.history);
  const idle = live.take(
    keys,
    (thread, at) =>
      at > 0 && thread.openTurnId === undefined && compaction.history.slice(at).every(isNewMessage),
  );
  const replaced =
    idle === undefined
      ? live.takeAtTurn(keys, (thread, at, turn) =>
          canReplaceTurn(thread, turn, keys, compaction.history, at),
        )
      : undefined;
  const taken = idle ?? replaced;
  if (taken === undefined) return undefined;
  const names = nativeToolNames(conversation);
  let inject: ReadonlyArray<ResponsesItem>;
  try {
    inject = toCodexTurnInput(
      { history: compaction.history.slice(taken.at), input: [] },
      { allowRemoteImages: ctx.allowRemoteImages, ...(names ? { codexName: names.toCodex } : {}) },
    ).inject;
  } catch {
    // An image codex cannot take: the summary turn refuses it in the client's words.
    void live.release(taken.thread);
    return undefined;
  }
  const lease = ctx.pool.leaseProcess(taken.thread.proc);
  if (lease === undefined) {
    void live.release(taken.thread);
    return undefined;
  }
  let { thread } = taken;
  if (replaced !== undefined) {
    const turnId = (thread.turns[replaced.turn] as TurnBoundary).turnId;
    const reverted = await revertThread(ctx, thread, turnId);
    if (reverted === undefined) {
      lease.release();
      void live.release(thread);
      return undefined;
    }
    thread = reverted;
  }
  return { thread, lease, root, compaction, inject };
};

const assistantText = (item: unknown): string => {
  const m = item as { type?: unknown; role?: unknown; content?: unknown };
  if (m?.type !== "message" || m.role !== "assistant" || !Array.isArray(m.content)) return "";
  return m.content.map((p: { text?: unknown }) => (typeof p?.text === "string" ? p.text : "")).join("");
};

/** What codex reported for its compaction turn. */
interface Compacted {
  readonly turnId: string | undefined;
  readonly summary: string;
  readonly usage: Usage | undefined;
  readonly total: Usage | undefined;
}

/**
 * `thread/compact/start {threadId}` (answered `{}`) runs a compaction turn on the thread: codex
 * 0.169 sends `turn/started` (opted out here), `item/started` of a `contextCompaction` item, the summary as a raw
 * assistant message (`rawResponseItem/completed`), `rawResponse/completed` with its usage,
 * `thread/tokenUsage/updated`, `item/completed`, `turn/completed` (no `thread/compacted`).
 */
const compactThread = (
  ctx: CompactionContext,
  found: Compactable,
  signal: AbortSignal,
): Promise<Compacted> => {
  const { channel, proc } = found.thread;
  const { threadId } = channel;
  let turnId: string | undefined;
  let summary = "";
  let usage: Usage | undefined;
  let total: Usage | undefined;
  const unread = ctx.readRawMessages?.(threadId);
  return new Promise<Compacted>((resolve, reject) => {
    const fail = (error: GatewayError) => {
      done();
      reject(error);
    };
    const onAbort = () => {
      if (turnId !== undefined)
        void proc.connection
          .request("turn/interrupt", { threadId, turnId }, { timeoutMs: ctx.requestTimeoutMs })
          .catch(() => {});
      fail(new GatewayError("cancelled", "The client closed the connection."));
    };
    const stopExit = proc.onExit(() =>
      fail(new GatewayError("backend_error", "codex exited mid-compaction.")),
    );
    const done = () => {
      unread?.();
      channel.detach();
      stopExit();
      signal.removeEventListener("abort", onAbort);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    channel.attach((method, params) => {
      // `turn/started` is opted out; the compaction item's start names the turn.
      if (method === "item/started" && typeof params.turnId === "string") turnId = params.turnId;
      else if (method === "rawResponseItem/completed") summary += assistantText(params.item);
      else if (method === "rawResponse/completed" && params.usage)
        usage = addUsage(usage, toUsage(params.usage as Parameters<typeof toUsage>[0]));
      else if (method === "thread/tokenUsage/updated") {
        const t = (params.tokenUsage as { total?: Parameters<typeof toUsage>[0] } | undefined)?.total;
        if (t) total = toUsage(t);
      } else if (method === "turn/completed") {
        const turn = params.turn as { status?: string; error?: unknown } | undefined;
        if (turn?.status !== "completed")
          return fail(mapCodexTurnError(turn?.error as Parameters<typeof mapCodexTurnError>[0]));
        done();
        resolve({ turnId, summary: summary.trim(), usage, total });
      }
    });
    const rpc = proc.connection;
    const timeout = { timeoutMs: ctx.requestTimeoutMs };
    (found.inject.length === 0
      ? Promise.resolve()
      : rpc.request("thread/inject_items", { threadId, items: found.inject }, timeout)
    )
      .then(() => rpc.request("thread/compact/start", { threadId }, timeout))
      .catch((e: unknown) =>
        fail(new GatewayError("backend_error", `codex could not compact the thread: ${String(e)}`)),
      );
  });
};

/**
 * Compacts the conversation's own live thread, when it has one (the same thread and
 * `prompt_cache_key` go on after it): yields the turn (the summary as text), then parks the thread
 * under the history the client sends back after compaction. `undefined` (nothing yielded) when
 * there is no such thread: the caller runs the request as the portable summary turn.
 */
export const compactNatively = async (
  ctx: CompactionContext,
  request: BackendRequest,
  signal: AbortSignal,
): Promise<AsyncGenerator<BackendBatch> | undefined> => {
  const { live } = ctx;
  if (live === undefined || request.compaction === undefined) return undefined;
  const releaseAdmission = await ctx.admission.acquire(signal);
  let found: Compactable | undefined;
  try {
    found = await takeCompactable(ctx, live, request, request.compaction);
  } finally {
    if (found === undefined) releaseAdmission();
  }
  if (found === undefined) return undefined;
  const compactable = found;
  return (async function* () {
    const { thread } = compactable;
    let parked = false;
    try {
      const compacted = await compactThread(ctx, compactable, signal);
      const summaryMessage: PromptMessage = {
        role: "user",
        content: [{ type: "text", text: renderCompactionSummary(compacted.summary) }],
      };
      const kept =
        compactable.compaction.keep === "user-messages"
          ? compactable.compaction.history.filter(isUserMessage)
          : [];
      const after = [...kept, summaryMessage];
      const key = prefixKeys(compactable.root, after).at(-1) as ConversationKey;
      live.park(key, {
        ...thread,
        openTurnId: undefined,
        usageTotal: compacted.total ?? thread.usageTotal,
        size: JSON.stringify(after).length + thread.toolChars,
        // A revert to before the compaction is not offered: the thread no longer holds those turns.
        turns: [],
        // It ends with the summary, a user message: a request that sends just that is answered here.
        unanswered: true,
      });
      parked = true;
      yield [
        { type: "stream-start", model: request.model, turnId: compacted.turnId },
        { type: "text-delta", delta: compacted.summary },
        ...(compacted.usage ? [{ type: "usage" as const, usage: compacted.usage }] : []),
        { type: "finish", finish: { reason: "stop", raw: "compaction" } },
      ];
    } finally {
      if (!parked) void live.release(thread);
      compactable.lease.release();
      releaseAdmission();
    }
  })();
};
