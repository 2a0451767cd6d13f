import type { Usage } from "@proxy/core";
import type { Logger } from "../logger.js";
import type { AppServerProcess } from "../transport/app-server-process.js";
import type { ConversationKey } from "./conversation-key.js";
import { freeThread } from "./free-thread.js";
import type { ThreadChannel } from "./thread-channel.js";

/**
 * One codex turn of a durable live thread, where it can be reverted to: `key` is the conversation
 * codex holds when the turn begins (the injected history included, which a revert keeps), what
 * the thread holds again after `thread/revert` before `turnId`.
 */
export interface TurnBoundary {
  readonly key: ConversationKey;
  readonly turnId: string;
  /** The thread's usage total at that point (a revert rolls codex's total back to it). */
  readonly usageBefore: Usage | undefined;
  /**
   * Set only on a turn that begins at the conversation's start: the conversation once the turn's
   * first model response was told. A request reverting there must have come through it (else it
   * may be another conversation of the same caller that only starts alike), and that beginning is
   * never told to watchers (every conversation of the caller starts there).
   */
  readonly firstReply?: ConversationKey | undefined;
}

/** A codex thread kept alive after its request, to continue the same conversation. */
export interface LiveThread {
  readonly proc: AppServerProcess;
  readonly channel: ThreadChannel;
  /** codex's turn left open at the model's tool calls (native mode): the next request answers them. */
  readonly openTurnId: string | undefined;
  /** The thread's usage total so far, to report the next turn's own usage. */
  readonly usageTotal: Usage | undefined;
  /** The conversation's size in chars, its tool list included (what codex holds for it), for the memory bound. */
  readonly size: number;
  /** The characters of its native tool list (dynamic tools), which codex keeps for the thread; 0 in prompt mode. */
  readonly toolChars: number;
  /** Its latest turns, oldest first, when the thread is durable (revertible); else empty. */
  readonly turns: ReadonlyArray<TurnBoundary>;
  /**
   * Its conversation ends with a user message the model has not answered (a compaction's summary):
   * a request whose conversation is exactly that runs a turn on it with no new input.
   */
  readonly unanswered?: boolean | undefined;
}

export interface LiveThreadLimits {
  /** Live threads per app-server; the least recently used is let go first. */
  readonly maxPerProcess: number;
  /** A thread no request continued for this long is let go. */
  readonly idleMs: number;
  /** Conversation chars (tool lists included) kept alive per app-server, over all its live threads. */
  readonly maxCharsPerProcess: number;
}

export interface LiveThreadCounts {
  readonly live: number;
  /** Requests that continued a live thread, since the backend started. */
  readonly continued: number;
}

export interface LiveThreads {
  /**
   * The live thread whose conversation is `keys[at]`, for the largest such `at` that `accept`
   * takes, removed from the table: of concurrent requests continuing one conversation, exactly
   * one gets it (the others start fresh threads).
   */
  take(
    keys: ReadonlyArray<ConversationKey>,
    accept: (thread: LiveThread, at: number) => boolean,
  ): { readonly thread: LiveThread; readonly at: number } | undefined;
  /**
   * The live thread with a turn that begins at `keys[at]`, for the largest such `at` that `accept`
   * takes (given the index of that turn in `thread.turns`), removed from the table. Threads left
   * open at tool calls are offered too: `thread/revert` ends codex's open turn itself.
   */
  takeAtTurn(
    keys: ReadonlyArray<ConversationKey>,
    accept: (thread: LiveThread, at: number, turn: number) => boolean,
  ): { readonly thread: LiveThread; readonly at: number; readonly turn: number } | undefined;
  /** Keeps `thread` for the request whose conversation will be `key`; evicts beyond the limits. */
  park(key: ConversationKey, thread: LiveThread): void;
  /** Lets a thread go: interrupts its open turn, refuses held tool calls, unsubscribes. */
  release(thread: LiveThread): Promise<void>;
  counts(): LiveThreadCounts;
  /**
   * Told each time a conversation key becomes continuable here (`live`) and stops being so (taken
   * by a request, let go, its app-server gone); returns the unsubscribe. Continuable: a thread is
   * parked at it, or a parked durable thread has a turn that begins there (where an edit of that
   * turn takes it, `takeAtTurn`), the conversation's start excepted. Each key is told once however many threads have it.
   */
  watch(listener: LiveConversationListener): () => void;
  /** Let every thread go and stop (shutdown); settles once codex answered for each. */
  close(): Promise<void>;
}

export type LiveConversationListener = (key: ConversationKey, live: boolean) => void;

export interface ReleaseOptions {
  readonly requestTimeoutMs: number;
  readonly logger: Logger;
  /** The gateway's threads are durable (kept edits): a released thread is deleted. */
  readonly durableThreads: boolean;
}

interface Entry {
  readonly thread: LiveThread;
  lastUsedAt: number;
}

/**
 * Lets a thread go: interrupts its open turn first (so codex ignores the refused tool calls instead
 * of sampling on), refuses held tool calls, then unsubscribes (deletes a durable thread), in the
 * background: the promise settles when codex has answered (it never rejects).
 */
export const releaseThread = (
  proc: AppServerProcess,
  channel: ThreadChannel,
  openTurnId: string | undefined,
  options: ReleaseOptions,
): Promise<void> => {
  channel.detach();
  const { threadId } = channel;
  if (!proc.isAlive()) {
    channel.close();
    return Promise.resolve();
  }
  const rpc = proc.connection;
  const timeoutMs = options.requestTimeoutMs;
  const quiet = (what: string) => (err: unknown) =>
    options.logger.debug({ err, threadId }, `codex ${what} failed`);
  return (async () => {
    if (openTurnId !== undefined)
      await rpc
        .request("turn/interrupt", { threadId, turnId: openTurnId }, { timeoutMs })
        .catch(quiet("turn/interrupt"));
    channel.close();
    await freeThread(rpc, threadId, options.durableThreads, timeoutMs).catch(quiet("thread release"));
  })();
};

/**
 * The table of live threads, keyed by conversation (which includes the caller and the thread
 * config). Bounded per app-server by count and conversation size, and by idle time; an app-server
 * that exits takes its threads with it.
 */
export const createLiveThreads = (limits: LiveThreadLimits, options: ReleaseOptions): LiveThreads => {
  const entries = new Map<ConversationKey, Entry>(); // insertion order = least recently parked first
  // A turn boundary's key → the key of the live thread that has it (the newest, should two share one).
  const boundaries = new Map<ConversationKey, ConversationKey>();
  const watched = new WeakSet<AppServerProcess>();
  const listeners = new Set<LiveConversationListener>();
  const tell = (key: ConversationKey, live: boolean) => {
    for (const listener of listeners) listener(key, live);
  };
  let continued = 0;
  let closed = false;

  const continuable = (key: ConversationKey) => entries.has(key) || boundaries.has(key);
  const release = (thread: LiveThread) =>
    releaseThread(thread.proc, thread.channel, thread.openTurnId, options);
  const forget = (key: ConversationKey, entry: Entry) => {
    entries.delete(key);
    if (!continuable(key)) tell(key, false);
    for (const t of entry.thread.turns)
      if (boundaries.get(t.key) === key) {
        boundaries.delete(t.key);
        if (t.firstReply === undefined && !continuable(t.key)) tell(t.key, false);
      }
  };
  const drop = (key: ConversationKey, entry: Entry) => {
    forget(key, entry);
    return release(entry.thread);
  };
  const enforce = (proc: AppServerProcess) => {
    let count = 0;
    let chars = 0;
    for (const e of entries.values())
      if (e.thread.proc === proc) {
        count++;
        chars += e.thread.size;
      }
    for (const [key, e] of entries) {
      if (count <= limits.maxPerProcess && chars <= limits.maxCharsPerProcess) break;
      if (e.thread.proc !== proc) continue;
      count--;
      chars -= e.thread.size;
      void drop(key, e);
    }
  };
  const sweep = () => {
    const before = Date.now() - limits.idleMs;
    for (const [key, e] of entries) if (e.lastUsedAt < before) void drop(key, e);
  };
  const sweeper = setInterval(sweep, Math.max(250, Math.min(limits.idleMs / 2, 30_000)));
  sweeper.unref();

  return {
    take(keys, accept) {
      for (let at = keys.length - 1; at >= 0; at--) {
        const key = keys[at] as ConversationKey;
        const entry = entries.get(key);
        if (entry === undefined || !entry.thread.proc.isAlive() || !accept(entry.thread, at)) continue;
        forget(key, entry);
        continued++;
        return { thread: entry.thread, at };
      }
      return undefined;
    },
    takeAtTurn(keys, accept) {
      for (let at = keys.length - 1; at >= 0; at--) {
        const boundary = keys[at] as ConversationKey;
        const liveKey = boundaries.get(boundary);
        const entry = liveKey === undefined ? undefined : entries.get(liveKey);
        if (liveKey === undefined || entry === undefined) continue;
        const { thread } = entry;
        const turn = thread.turns.findIndex((t) => t.key === boundary);
        if (turn === -1 || !thread.proc.isAlive()) continue;
        if (!accept(thread, at, turn)) continue;
        forget(liveKey, entry);
        continued++;
        return { thread, at, turn };
      }
      return undefined;
    },
    park(key, thread) {
      if (closed || !thread.proc.isAlive()) {
        void release(thread);
        return;
      }
      const old = entries.get(key);
      if (old !== undefined) void drop(key, old); // the same conversation twice: the newer thread wins
      if (!continuable(key)) tell(key, true);
      entries.set(key, { thread, lastUsedAt: Date.now() });
      for (const t of thread.turns) {
        if (t.firstReply === undefined && !continuable(t.key)) tell(t.key, true);
        boundaries.set(t.key, key);
      }
      if (!watched.has(thread.proc)) {
        watched.add(thread.proc);
        // Its threads died with it: forget them (nothing to send to a dead process).
        thread.proc.onExit(() => {
          for (const [k, e] of entries) if (e.thread.proc === thread.proc) void drop(k, e);
        });
      }
      enforce(thread.proc);
    },
    release,
    counts: () => ({ live: entries.size, continued }),
    watch(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close() {
      closed = true;
      clearInterval(sweeper);
      const released: Array<Promise<void>> = [];
      for (const [key, e] of entries) released.push(drop(key, e));
      return Promise.all(released).then(() => {});
    },
  };
};
