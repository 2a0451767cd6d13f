import { PARAMS } from "./codex-notifications.js";

/**
 * What a turn keeps of codex's notifications. codex echoes what the gateway sent it: the turn's input
 * (an inline image whole) in `item/started` and `item/completed` of the user message and, with raw
 * events, in a raw user-message item; a fresh thread's injected history as one raw item per message;
 * and the whole answer again in `item/completed` and a raw message item at its end. None of that is
 * read, so none of it is held, parsed or counted where it can be avoided:
 *
 * 1. codex is asked not to send the methods no turn reads (`optOutNotificationMethods`);
 * 2. the lines of the echoes are skipped from their first characters while they stream
 *    (`isUnreadLine`: codex writes `method`, then the item's `type`, first), and the items of
 *    `turn/completed` (the whole answer again) are cut out of its line as it streams (`unreadMember`);
 * 3. whatever still arrives is cut to the fields the turn reads (`keptParams`) or dropped, so
 *    a codex that orders its fields differently costs a parse, never the turn's bound.
 */
export const OPTED_OUT_NOTIFICATIONS: ReadonlyArray<string> = [
  // item/completed is sent: a hosted web search's query is known only when its item completes
  // (item/started has `query: ""`); every other completed item is skipped from its head below.
  "thread/started",
  "turn/started",
  "thread/status/changed",
  "item/reasoning/summaryPartAdded",
];

/**
 * The echoed user message, raw items other than function calls (messages, reasoning, call
 * outputs), and completed items other than a web search (the answer again, reasoning, calls).
 */
const UNREAD_LINE =
  /^\{"method":"(?:item\/started","params":\{"item":\{"type":"userMessage"|rawResponseItem\/completed","params":\{"threadId":"[^"]*","turnId":"[^"]*","item":\{"type":"(?!function_call")|item\/completed","params":\{"item":\{"type":"(?!webSearch"))/;

/** For the line decoder's `skip`: a line no turn reads, known from its first characters. */
export const isUnreadLine = (head: string): boolean => UNREAD_LINE.test(head);

/** For the line decoder's `elide`: `turn/completed` is read for its turn's id, status and error, not its items. */
export const unreadMember = (head: string): string | undefined =>
  head.startsWith('{"method":"turn/completed"') ? "items" : undefined;

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null;

const typeOf = (item: unknown): unknown => (isObject(item) ? item.type : undefined);

/**
 * The params a turn keeps of one notification of its thread, or `undefined` when it reads nothing
 * of it. The kept object holds only what the turn's mapper reads, so a long answer repeated in
 * `turn/completed` or a call's arguments repeated in `item/started` is let go at once.
 */
export const keptParams = (
  method: string,
  params: Record<string, unknown>,
): Record<string, unknown> | undefined => {
  if (!PARAMS.has(method)) return undefined;
  switch (method) {
    case "item/started":
    case "item/completed": {
      const item = params.item;
      const type = typeOf(item);
      if (type === "webSearch" && isObject(item))
        return { turnId: params.turnId, item: { type, id: item.id, query: item.query, action: item.action } };
      return type === "userMessage" || method === "item/completed"
        ? undefined
        : { turnId: params.turnId, item: { type } };
    }
    case "rawResponseItem/completed":
      return typeOf(params.item) === "function_call" ? params : undefined;
    case "turn/completed": {
      const turn = params.turn;
      if (!isObject(turn)) return params;
      return { turn: { id: turn.id, status: turn.status, error: turn.error } };
    }
    case "item/tool/call":
      return { turnId: params.turnId, callId: params.callId };
    default:
      return params;
  }
};

const THREAD_ID = /"threadId":"([^"]*)"/;

/**
 * `isUnreadLine` with exceptions: the raw messages of the threads now compacting are read (codex
 * tells a compaction's summary only as a raw assistant message, see native-compaction.ts). An
 * ordinary turn's line pays one size check for it; one filter per pool, its set per compaction.
 */
export const createLineFilter = () => {
  const readers = new Map<string, number>();
  return {
    skipLine: (head: string): boolean => {
      if (!isUnreadLine(head)) return false;
      if (readers.size === 0) return true;
      const threadId = THREAD_ID.exec(head)?.[1];
      return (
        threadId === undefined || !readers.has(threadId) || !head.includes('"rawResponseItem/completed"')
      );
    },
    /** Reads `threadId`'s raw messages until the returned function is called. */
    readRawMessages(threadId: string): () => void {
      readers.set(threadId, (readers.get(threadId) ?? 0) + 1);
      let undone = false;
      return () => {
        if (undone) return;
        undone = true;
        const left = (readers.get(threadId) ?? 1) - 1;
        if (left === 0) readers.delete(threadId);
        else readers.set(threadId, left);
      };
    },
  };
};
