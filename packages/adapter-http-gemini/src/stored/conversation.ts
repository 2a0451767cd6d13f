import { GatewayError, type IdGenerator, invalidRequest } from "@proxy/core";
import { autocreatedConversationId, isStorableId, type ResponseStore } from "@proxy/core/gateway";
import { callerOwner } from "@proxy/http-surface";
import type { Context } from "hono";
import type { GeminiResponse } from "../response-shapes.js";

type GeminiContent = GeminiResponse["candidates"][number]["content"];

/** The conversation store `POST /v1/gemini` keys multi-turn tool conversations on. */
export interface GeminiConversations {
  readonly store: ResponseStore;
  /** How long a conversation is kept after it is created. */
  readonly ttlMs: number;
  /** `PROXY_CONVERSATIONS_AUTOCREATE`: an unknown key creates the conversation instead of a 404. */
  readonly autocreate: boolean;
}

/** A conversation a turn continues: its owner, id and the `Content`s before this request. */
export interface OpenConversation {
  readonly owner: string;
  readonly id: string;
  readonly history: ReadonlyArray<unknown>;
}

const notFound = (id: string) =>
  new GatewayError("not_found", `Conversation '${id}' is not found.`, {
    param: "conversation",
    code: "not_found",
  });

/**
 * Reads the caller's conversation `id` (its stored Gemini `Content`s, oldest first). Another
 * owner's conversation does not exist for this caller; an unknown one is created when autocreate
 * is on. Without a store, `conversation` is refused.
 */
export const openConversation = async (
  c: Context,
  conversations: GeminiConversations | undefined,
  id: string,
  now: number,
): Promise<OpenConversation> => {
  if (conversations === undefined)
    throw invalidRequest(
      "'conversation' needs the gateway's store (PROXY_STORE is none): send the whole history in 'contents' instead.",
      "conversation",
    );
  const { store } = conversations;
  const owner = callerOwner(c);
  if (!isStorableId(id)) throw notFound(id);
  const named = await store.readConversation(owner, id);
  if (named !== undefined) return { owner, id, history: named.map((item) => item.body) };
  if (!conversations.autocreate) throw notFound(id);
  // An autocreated name is the caller's own: stored under a key scoped to its owner.
  const scoped = autocreatedConversationId(owner, id);
  const items = await store.readConversation(owner, scoped);
  if (items !== undefined) return { owner, id: scoped, history: items.map((item) => item.body) };
  await store
    .createConversation(
      { id: scoped, owner, createdAt: now, expiresAt: now + conversations.ttlMs, metadata: {} },
      [],
    )
    .catch(async () => {
      // Another request of this owner just created it.
      if ((await store.getConversation(owner, scoped)) === undefined) throw notFound(id);
    });
  return { owner, id: scoped, history: [] };
};

/** Appends a finished turn: the request's new `Content`s, then the model's answer. */
export const appendTurn = async (
  conversations: GeminiConversations,
  open: OpenConversation,
  ids: IdGenerator,
  input: ReadonlyArray<unknown>,
  answer: GeminiContent,
): Promise<void> => {
  const items = [...input, answer].map((body) => ({ id: ids.next("item"), body }));
  if (!(await conversations.store.appendConversationItems(open.owner, open.id, items)))
    throw notFound(open.id);
};
