import type { BackendRequest, PromptMessage, Usage } from "@proxy/core";
import {
  type ConversationKey,
  extendKey,
  prefixKeys,
  replyMessages,
  rootKey,
} from "../threads/conversation-key.js";
import type { LiveThread, LiveThreads, TurnBoundary } from "../threads/live-threads.js";
import type { CodexTurnInput } from "./codex-input.js";
import type { TurnMapper } from "./turn-mapper.js";

/** How a request continues a live thread: its new items only. */
export interface Continuation {
  readonly thread: LiveThread;
  /** Native: the client's tool results, answering codex's open tool calls (its turn goes on). */
  readonly answers: ReadonlyArray<{ readonly callId: string; readonly output: string }>;
  /** Otherwise: new messages to inject and the new input of a new turn. */
  readonly turn: CodexTurnInput | undefined;
  /**
   * An edit: `thread/revert` before this turn first (it and every later turn are discarded, an
   * open one ended), then `turn` (the replacing items injected, its input started).
   */
  readonly revertBefore: string | undefined;
  /** The thread's turns the conversation keeps (those before the reverted one, on an edit). */
  readonly turns: ReadonlyArray<TurnBoundary>;
  /** codex's usage total for the thread when this request's turn begins. */
  readonly usageBefore: Usage | undefined;
  /** The thread already holds the request's whole conversation (see `LiveThread.unanswered`). */
  readonly holdsInput?: boolean | undefined;
}

/**
 * The params as every process of the gateway has them, so replicas derive the same key for one
 * conversation: the per-process paths (the empty cwd, the sealed catalog's file, both in the
 * backend's own temp dir) are left out; what they hold is the same everywhere.
 */
const portableParams = (threadParams: Record<string, unknown>) => {
  const { cwd: _cwd, config, ...rest } = threadParams;
  const { model_catalog_json: _catalog, ...portable } = (config ?? {}) as Record<string, unknown>;
  return { ...rest, config: portable };
};

/**
 * What a thread is fixed to (or what the gateway sends on each of its turns): a request that
 * differs in any of it never continues it. `threadParams` carries model, instructions and the
 * native tools (their presence is the tool mode).
 */
export const conversationRoot = (request: BackendRequest, threadParams: Record<string, unknown>) =>
  rootKey(request.partition ?? "", {
    threadParams: portableParams(threadParams),
    effort: request.reasoningEffort ?? null,
    summary: request.reasoningSummary ?? null,
  });

const isNewMessage = (m: PromptMessage) => "content" in m && (m.role === "user" || m.role === "developer");

/**
 * The items a request has after a turn boundary stand on their own: each call among them is
 * answered by one result after it, and no result answers a call outside them. Otherwise the
 * history stops mid-call (or answers a call of the kept prefix): no turn is replaced with it.
 */
const isWholeSpan = (added: ReadonlyArray<PromptMessage>): boolean => {
  const open = new Set<string>();
  const seen = new Set<string>();
  for (const m of added)
    if ("toolCalls" in m)
      for (const { callId } of m.toolCalls) {
        if (seen.has(callId)) return false;
        seen.add(callId);
        open.add(callId);
      }
    else if (m.role === "tool" && !open.delete(m.callId)) return false;
  return open.size === 0;
};

/**
 * Whether a history whose first `at` items are where the thread's turn `index` begins (`keys` its
 * prefix keys) can replace that turn with its items after them: those stand on their own, and a
 * turn at the conversation's start is replaced only by a request that came through its first reply
 * (one sharing no model output with the thread cannot be told from a new conversation of the same
 * caller, which must not take and end this one's thread).
 */
export const canReplaceTurn = (
  thread: LiveThread,
  index: number,
  keys: ReadonlyArray<ConversationKey>,
  history: ReadonlyArray<PromptMessage>,
  at: number,
): boolean => {
  const firstReply = (thread.turns[index] as TurnBoundary).firstReply;
  if (at === 0 && (firstReply === undefined || !keys.includes(firstReply))) return false;
  return isWholeSpan(history.slice(at));
};

/**
 * Finds the live thread this request continues: one whose conversation is exactly a prefix of the
 * request's history, followed only by new items: the client's results for every tool call codex
 * still waits on (and nothing else), or, on a finished turn, new user/developer messages and input.
 * Failing that, an edit: a durable thread with a turn that begins at a prefix of the request's
 * history is reverted to before that turn (a turn left open at tool calls included: the revert
 * ends it), and the request's items after that prefix replace it: injected as a fresh thread gets
 * them (its messages, its calls and their results), then the input. So a regenerate of the last
 * answer, an edit of the last message, or a rerun of a tool loop's last step after its results
 * (the turn spans the whole loop in native mode) goes on on the same thread. Refused: items that
 * stop mid-call (a call without its result, a result for a call outside them), a turn that begins
 * at the conversation's start unless the request came through its first reply (a new conversation
 * of the same caller that only starts alike must not take and end this one's thread), other
 * settings, another caller.
 */
export const takeContinuation = (
  live: LiveThreads,
  root: ConversationKey,
  request: BackendRequest,
  toTurnInput: (request: Pick<BackendRequest, "history" | "input">) => CodexTurnInput,
): { readonly keys: ConversationKey[]; readonly continuation: Continuation | undefined } => {
  const keys = prefixKeys(root, request.history);
  let turn: CodexTurnInput | undefined;
  let answers: Array<{ callId: string; output: string }> = [];
  if (request.input.length > 0) {
    // A compacted thread ends with the summary the request sends as its prompt: answer it there.
    const whole = extendKey(keys[keys.length - 1] as ConversationKey, {
      role: "user",
      content: request.input,
    });
    const held = live.take(
      [whole],
      (thread) => thread.unanswered === true && thread.openTurnId === undefined,
    );
    if (held !== undefined) {
      const { thread } = held;
      const none = { inject: [], input: [] };
      const continuation = { thread, answers: [], turn: none, revertBefore: undefined, turns: thread.turns };
      return { keys, continuation: { ...continuation, usageBefore: thread.usageTotal, holdsInput: true } };
    }
  }
  const newTurn = (at: number): boolean => {
    const added = request.history.slice(at);
    if (!added.every(isNewMessage) || (added.length === 0 && request.input.length === 0)) return false;
    turn = toTurnInput({ history: added, input: request.input });
    answers = [];
    return true;
  };
  const taken = live.take(keys, (thread, at) => {
    const added = request.history.slice(at);
    if (thread.openTurnId !== undefined) {
      const pending = new Set(thread.channel.pendingCalls());
      if (request.input.length > 0 || added.length !== pending.size) return false;
      answers = [];
      for (const m of added) {
        if (m.role !== "tool" || !pending.delete(m.callId)) return false;
        answers.push({ callId: m.callId, output: m.output });
      }
      turn = undefined;
      return pending.size === 0;
    }
    return newTurn(at);
  });
  if (taken) {
    const { thread } = taken;
    const continuation = {
      thread,
      answers,
      turn,
      revertBefore: undefined,
      turns: thread.turns,
      usageBefore: thread.usageTotal,
    };
    return { keys, continuation };
  }
  const replacesTurn = (thread: LiveThread, at: number, index: number): boolean => {
    if (!canReplaceTurn(thread, index, keys, request.history, at)) return false;
    turn = toTurnInput({ history: request.history.slice(at), input: request.input });
    answers = [];
    return true;
  };
  const edited = live.takeAtTurn(keys, replacesTurn);
  if (edited === undefined) return { keys, continuation: undefined };
  const { thread } = edited;
  const reverted = thread.turns[edited.turn] as TurnBoundary;
  const continuation = {
    thread,
    answers,
    turn,
    revertBefore: reverted.turnId,
    turns: thread.turns.slice(0, edited.turn),
    usageBefore: reverted.usageBefore,
  };
  return { keys, continuation };
};

/** The key of the conversation after this turn, as the client will send it back next time. */
export const nextConversationKey = (
  keys: ReadonlyArray<ConversationKey>,
  request: BackendRequest,
  reply: ReturnType<TurnMapper["reply"]>,
): ConversationKey => {
  let key = keys[keys.length - 1] as ConversationKey;
  if (request.input.length > 0) key = extendKey(key, { role: "user", content: request.input });
  for (const m of replyMessages(reply)) key = extendKey(key, m);
  return key;
};
