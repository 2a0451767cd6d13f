import type { BackendRequest } from "@proxy/core";
import type { ConversationKey } from "../threads/conversation-key.js";
import {
  type LiveThreads,
  type ReleaseOptions,
  releaseThread,
  type TurnBoundary,
} from "../threads/live-threads.js";
import type { ThreadChannel } from "../threads/thread-channel.js";
import type { AppServerProcess } from "../transport/app-server-process.js";
import { type Continuation, nextConversationKey } from "./continuation.js";
import type { TurnMapper } from "./turn-mapper.js";

/** The thread a request holds, once it has one. */
export interface HeldThread {
  readonly proc: AppServerProcess;
  readonly channel: ThreadChannel;
  /** The request's conversation keys (continuity on). */
  readonly keys: ConversationKey[] | undefined;
  readonly continuation: Continuation | undefined;
  /** The characters of the thread's native tool list (see `LiveThread.toolChars`). */
  readonly toolChars: number;
}

/** How many of a thread's latest turns an edit can go back to (older edits start a fresh thread). */
const MAX_REVERTIBLE_TURNS = 32;

/**
 * The conversation's size in chars, roughly what codex holds for it (the live threads' memory
 * bound); the thread's tool list is added by the caller.
 */
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
 * What a turn knows about its codex turn, to stop it and, at the end, to keep its thread for the
 * conversation's next request or let it go. `interrupt` is idempotent and waits for nothing.
 */
export const createTurnControl = (
  ctx: { readonly live: LiveThreads | undefined } & ReleaseOptions,
  request: BackendRequest,
  signal: AbortSignal,
) => {
  let held: HeldThread | undefined;
  let mapper: TurnMapper | undefined;
  let turnStart: Promise<unknown> | undefined;
  let turnId: string | undefined;
  let interrupting: Promise<unknown> | undefined;

  /** codex's turn is still running (not completed, failed or interrupted inside codex). */
  const turnOpen = () => {
    const ending = mapper?.ending();
    return ending === undefined || ending === "tool_calls" || ending === "broken";
  };
  const interrupt = () => {
    if (interrupting || held === undefined || turnId === undefined || !turnOpen()) return;
    const { proc, channel } = held;
    interrupting = proc.connection.request(
      "turn/interrupt",
      { threadId: channel.threadId, turnId },
      { timeoutMs: ctx.requestTimeoutMs },
    );
    interrupting.catch((err: unknown) => ctx.logger.debug({ err }, "codex turn/interrupt failed"));
  };

  /** The reply ended cleanly and the thread holds exactly what the client was told. */
  const parkable = (h: HeldThread, turn: TurnMapper): boolean => {
    const ending = turn.ending();
    const reply = turn.reply();
    const waiting = new Set(h.channel.pendingCalls());
    return (
      !signal.aborted &&
      interrupting === undefined &&
      h.proc.isAlive() &&
      reply.responses === 1 &&
      (ending === "completed" ||
        (ending === "tool_calls" &&
          waiting.size === reply.calls.length &&
          reply.calls.every((c) => waiting.has(c.callId))))
    );
  };

  return {
    hold(thread: HeldThread) {
      held = thread;
    },
    reading(turn: TurnMapper) {
      mapper = turn;
    },
    started(id: string | undefined, start?: Promise<unknown>) {
      turnId = id;
      if (start) turnStart = start;
    },
    interrupt,
    /** Keeps the thread for the conversation's next request when this turn ended cleanly, else lets it go. */
    settle() {
      if (held === undefined) return;
      const h = held;
      const turn = mapper;
      if (ctx.live && h.keys && turn && parkable(h, turn)) {
        h.channel.detach();
        const kept = h.continuation?.turns ?? [];
        const usageBefore = h.continuation?.usageBefore;
        const next = nextConversationKey(h.keys, request, turn.reply());
        // A new codex turn begins where the request's history ends (a continued open turn is not new).
        const turns: ReadonlyArray<TurnBoundary> =
          !ctx.durableThreads ||
          turnId === undefined ||
          h.continuation?.thread.openTurnId !== undefined ||
          // Its turn begins after the request's prompt, not where its history ends: no revert point.
          h.continuation?.holdsInput === true
            ? kept
            : [
                ...kept.slice(1 - MAX_REVERTIBLE_TURNS),
                {
                  key: h.keys[h.keys.length - 1] as ConversationKey,
                  turnId,
                  usageBefore,
                  // At the conversation's start, a request reverting there must come through it.
                  firstReply: h.keys.length === 1 ? next : undefined,
                },
              ];
        ctx.live.park(next, {
          proc: h.proc,
          channel: h.channel,
          openTurnId: turn.ending() === "tool_calls" ? turnId : undefined,
          usageTotal: turn.threadTotal() ?? usageBefore,
          size: conversationChars(request, turn) + h.toolChars,
          toolChars: h.toolChars,
          turns,
        });
        return;
      }
      // Interrupt (once a turn exists and is still running), then let the thread go — in the
      // background, so neither the abort listener nor the generator's exit waits on codex.
      void (async () => {
        await turnStart?.catch(() => {});
        interrupt();
        await interrupting?.catch(() => {});
        await releaseThread(h.proc, h.channel, undefined, ctx);
      })();
    },
  };
};

export type TurnControl = ReturnType<typeof createTurnControl>;
