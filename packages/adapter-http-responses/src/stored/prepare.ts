import type { IdGenerator } from "@proxy/core";
import { GatewayError, invalidRequest } from "@proxy/core";
import type { StoredItem } from "@proxy/core/gateway";
import { autocreatedConversationId, isStorableId } from "@proxy/core/gateway";
import type { ItemResolver } from "../request/decode-input.js";
import { referencedIds, toStoredItems } from "./items.js";
import type { StoredState } from "./state.js";

/** What the store contributes to one `POST /responses` before its turn runs. */
export interface PreparedTurn {
  readonly owner: string;
  /** `store` (default true): the response is kept once the turn ends. */
  readonly store: boolean;
  /** Earlier items (the chain, or the conversation), oldest first, as raw input items. */
  readonly history: ReadonlyArray<unknown>;
  readonly resolve: ItemResolver;
  readonly previousResponseId: string | null;
  /** The conversation as the store keys it (an autocreated name is scoped to its owner). */
  readonly conversationId: string | null;
  /** The conversation as the client named it (what responses show). */
  readonly conversationName: string | null;
  /** This request's input items with ids, as they are stored and listed. */
  readonly input: ReadonlyArray<StoredItem>;
}

const field = (json: unknown, key: string): unknown =>
  typeof json === "object" && json !== null ? (json as Record<string, unknown>)[key] : undefined;

/** `conversation`: an id or `{id}`. Anything else is left to the body decoder to reject. */
const conversationIdOf = (value: unknown): string | null => {
  if (typeof value === "string" && value !== "") return value;
  const id = field(value, "id");
  return typeof id === "string" && id !== "" ? id : null;
};

/** An input item's own `id` is kept as the stored item's id: one no store can hold is a 400. */
const checkItemIds = (input: unknown): void => {
  if (!Array.isArray(input)) return;
  input.forEach((item, i) => {
    const id = field(item, "id");
    if (typeof id === "string" && !isStorableId(id) && field(item, "type") !== "item_reference")
      throw invalidRequest(`'input[${i}].id' must not contain a NUL character.`, `input[${i}].id`);
  });
};

export const conversationNotFound = (id: string, param?: string) =>
  new GatewayError("not_found", `Conversation with id '${id}' not found.`, { param, code: "not_found" });

/**
 * Reads what the request refers to: the `previous_response_id` chain (every input and output item,
 * tool calls and their outputs included; instructions are not inherited) or the `conversation`,
 * and the items named by `item_reference`. A missing reference fails before any backend turn.
 */
export const prepareStoredTurn = async (
  json: unknown,
  owner: string,
  state: StoredState,
  ids: IdGenerator,
  now: number,
): Promise<PreparedTurn> => {
  const { store } = state;
  const previous = field(json, "previous_response_id");
  const previousResponseId = typeof previous === "string" ? previous : null;
  const conversationName = conversationIdOf(field(json, "conversation"));
  let conversationId = conversationName;
  if (previousResponseId !== null && conversationName !== null)
    throw invalidRequest(
      "Mutually exclusive parameters: 'previous_response_id' and 'conversation' cannot be used together.",
      "previous_response_id",
      "mutually_exclusive_parameters",
    );

  checkItemIds(field(json, "input"));
  let history: unknown[] = [];
  if (previousResponseId !== null) {
    const chain = isStorableId(previousResponseId)
      ? await store.readChain(owner, previousResponseId)
      : undefined;
    if (chain === undefined)
      throw invalidRequest(
        `Previous response with id '${previousResponseId}' not found.`,
        "previous_response_id",
        "previous_response_not_found",
      );
    history = chain.flatMap((link) => [...link.input, ...link.output].map((item) => item.body));
  } else if (conversationName !== null) {
    if (!isStorableId(conversationName)) throw conversationNotFound(conversationName, "conversation");
    const named = await store.readConversation(owner, conversationName);
    if (named !== undefined) history = named.map((item) => item.body);
    else if (state.autocreateConversations) {
      const id = autocreatedConversationId(owner, conversationName);
      conversationId = id;
      const items = await store.readConversation(owner, id);
      if (items !== undefined) history = items.map((item) => item.body);
      else
        await store
          .createConversation({ id, owner, createdAt: now, expiresAt: now + state.ttlMs, metadata: {} }, [])
          .catch(async () => {
            // Another request of this owner just created it.
            if ((await store.getConversation(owner, id)) === undefined)
              throw conversationNotFound(conversationName, "conversation");
          });
    } else throw conversationNotFound(conversationName, "conversation");
  }

  const referenced = new Map<string, unknown>();
  for (const id of referencedIds(field(json, "input"))) {
    const item = isStorableId(id) ? await state.items.lookup(owner, id) : undefined;
    if (item !== undefined) referenced.set(id, item);
  }
  const resolve: ItemResolver = (id) => referenced.get(id);
  return {
    owner,
    store: field(json, "store") !== false,
    history,
    resolve,
    previousResponseId,
    conversationId,
    conversationName,
    input: toStoredItems(field(json, "input"), ids, resolve),
  };
};
